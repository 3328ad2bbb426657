"""Lint: rules over FabricPlans, whatever the plan was built from (inventory or configs)."""
