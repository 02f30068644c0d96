"""Optional integrations, each behind an extra: `ray_engine` (the campaign on a Ray cluster,
`pip install .[cluster]`). Nothing outside this package imports them at module top."""
