"""LangGraph long-term memory backed by Membrane: `pip install 'membrane[langgraph]'`, then
`from membrane_langgraph import MembraneStore` (docs/langgraph.md)."""

from membrane_langgraph.store import MembraneStore
from membrane_langgraph.transport import MembraneError

__all__ = ["MembraneError", "MembraneStore"]
