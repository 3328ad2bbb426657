"""Text and numbers as people read and write them: counts in messages, units, name ranges,
comma lists, JSON text, and untrusted text made safe to print (printable.py). Imports nothing
of lossless."""
