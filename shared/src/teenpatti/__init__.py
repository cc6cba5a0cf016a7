"""Common library of the Teen Patti 20-20 backend."""
