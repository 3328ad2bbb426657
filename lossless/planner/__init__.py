"""The planner: from a validated Inventory to the vendor-neutral FabricPlan."""
