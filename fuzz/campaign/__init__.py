"""The nightly fuzz campaign: a supervisor, an engine that runs its workers, and triage.

    fuzz.campaign.nightly     `python -m fuzz nightly`: settings -> supervisor -> engine ->
                              triage -> report
    fuzz.campaign.supervisor  the campaign's state and decisions (budget, crashes, findings)
    fuzz.campaign.engines     the Engine protocol (open, run, confirm, close) and the poll
                              loop every engine shares (hangs, refusals, hard deadline)
    fuzz.campaign.local       the local engine: worker processes on this machine
    fuzz.campaign.worker      one worker: a Hypothesis loop over generated cases
    fuzz.campaign.protocol    the typed messages between workers and the supervisor
    fuzz.campaign.database    the Hypothesis example database (folder or Redis)
    fuzz.campaign.findings    findings and their case files (docstring, FOUND)
    fuzz.campaign.triage      known vs new, crash confirmation, filing
    fuzz.campaign.stats       the figures a campaign aggregates (coverage included)
    fuzz.campaign.report      report.json (and report_md: report.md)

The command layer builds the engine and passes it in; the Ray engine lives in
fuzz/extra/ray_engine.py (an optional integration, a layer above this package).
"""
