"""Stores: sessions as append-only JSONL files."""
