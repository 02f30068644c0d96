"""The nightly fuzz campaign: a parent process, worker processes, and what they share.

fuzz.campaign.nightly   the parent: workers, budget, crash/hang isolation, findings,
                        deduplication against the corpus, report (`python -m fuzz nightly`)
fuzz.campaign.worker    one worker process: a Hypothesis loop over generated cases
fuzz.campaign.findings  turning a divergence into a case file (docstring, FOUND)
fuzz.campaign.stats     the figures a campaign aggregates
fuzz.prepare   per-process setup: fixes switch, plugins, lane availability
"""
