from enum import StrEnum


class SourceKind(StrEnum):
    AGENT_TURN = "agent_turn"
    EPISODE = "episode"
    EVENT = "event"
    OBSERVATION = "observation"
    TOOL_OUTPUT = "tool_output"
    WORKING_STATE = "working_state"

    def __str__(self) -> str:
        return str(self.value)
