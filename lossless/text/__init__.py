"""Text and numbers as people read and write them: counts in messages, units, name ranges,
comma lists, JSON text. Imports nothing of lossless."""
