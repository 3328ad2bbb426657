"""Lint: rules over FabricPlans, whatever the plan was built from (inventory or configs).
registry.py is the mechanism (a rule, a finding), rules.py and deadlock_rules.py hold rules
(the host rules are in hosts/rules.py), catalogue.py knows them all, runner.py runs them;
configs.py and drift.py read configs back against a plan, report.py writes the findings."""
