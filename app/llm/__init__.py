"""Chat models behind an OpenAI-compatible API: the client (app/llm/client.py) and the
pure prompt and answer parsing of triple extraction (app/llm/triples.py)."""
