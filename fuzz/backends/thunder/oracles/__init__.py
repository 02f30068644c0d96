"""The Thunder lane's own oracles (pure functions of traces): cache.py."""
