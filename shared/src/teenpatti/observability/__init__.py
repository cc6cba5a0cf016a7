"""What a running process tells its operators: its log lines (`logs`), its traces
(`tracing`) and its metrics (`metrics`). The service kernel sets them up."""
