"""Op machinery shared by every op: ``operation``, ``func_op`` and grad mode."""
