"""One switch port under incast in time: PFC, ECN and DCQCN with the plan's own numbers
(`fluid.py`), and the headroom model checked frame by frame (`headroom_check.py`)."""
