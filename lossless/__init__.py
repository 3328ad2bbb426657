"""lossless: generate and lint lossless RoCE v2 QoS configuration for data-centre switches."""

__version__ = "0.2.0"
