"""How lossless uses the machine: bounded reads of untrusted files, atomic writes, worker
processes, memory of long-lived trees, and the data shipped with the package. Imports nothing
of lossless but its errors."""
