"""The command line, on top of everything: main.py parses the arguments (parser.py declares
them all) and runs the command's module (one per group: inventory, plan, render, lint,
report, deploy, completion), which checks its arguments, calls the library and prints."""
