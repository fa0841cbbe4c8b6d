"""Builders: sources and probe families."""
