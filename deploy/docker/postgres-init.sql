-- One database per service, as in the local stack (deploy/local/stack.sh).
CREATE DATABASE tp_table OWNER teenpatti;
CREATE DATABASE tp_scanner OWNER teenpatti;
CREATE DATABASE tp_settlement OWNER teenpatti;
CREATE DATABASE tp_wallet OWNER teenpatti;
-- the API keys every service reads (teenpatti migrate access; docs/access.md)
CREATE DATABASE tp_access OWNER teenpatti;
