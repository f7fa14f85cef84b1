"""Eight-valued logic, the stopping-condition pipeline, escalation, the ledger and the review
kernel. Knows no puzzle: it reads verdicts and reports, never a family."""
