"""The host end of every server link, in one place: what each NIC should be set to
(plan.py, inherited from the switch port at the other end of its cable), the NIC vendors that
write it (vendors.py lists them: nvidia.py, broadcom.py; nccl_env.py the NCCL/UCX
environment; values.py what their tools take), the server files (render.py, `render --hosts`),
reading a host's saved state back (nvidia_state.py, state.py, `lint --host-state`) and the
rules that judge a NIC against its switch port (rules.py).

A folder across layers: plan.py sits with the planner (planner/fabric.py plans the NICs
with the switches), rules.py and state.py with lint, the rest with the vendors
(docs/architecture.md).
"""
