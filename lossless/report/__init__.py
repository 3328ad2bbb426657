"""Output for people and tools: the plan as text (plan_text.py) and JSON (plan_json.py),
explanations, headroom tables, and the HTML/Markdown report (view.py, charts.py, page.py)."""
