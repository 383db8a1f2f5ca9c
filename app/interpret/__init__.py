"""LLM interpretation of captured records, off the request path: the queue (repository),
what an answer adds (service), the prompt and answer reader (parse, pure) and the worker
(worker; its docstring tells the whole flow)."""
