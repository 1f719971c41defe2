"""Command-line commands (one module each, with add_arguments(parser) and execute(args))."""
