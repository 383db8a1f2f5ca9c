from enum import StrEnum


class MemoryType(StrEnum):
    COMPETENCE = "competence"
    ENTITY = "entity"
    EPISODIC = "episodic"
    PLAN_GRAPH = "plan_graph"
    SEMANTIC = "semantic"
    WORKING = "working"

    def __str__(self) -> str:
        return str(self.value)
