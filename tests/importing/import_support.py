"""Small synthetic exports in each documented shape (no real data)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

T0 = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def chatgpt_conversation(
    conv_id: str, title: str, turns: list[tuple[str, str]], *, start: float = T0, branch: bool = False
) -> dict[str, Any]:
    """A ChatGPT conversation: a ``mapping`` tree from a root, one turn per node, ``current_node`` on
    the last. With ``branch``, the first user turn also has an edited-away sibling the walk must skip."""
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for i, (role, text) in enumerate(turns):
        node = f"{conv_id}-n{i}"
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": f"{conv_id}-m{i}",
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": start + 60 * i,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {},
            },
        }
        mapping[parent]["children"].append(node)
        if branch and i == 0:
            mapping[f"{conv_id}-old"] = {
                "id": f"{conv_id}-old",
                "parent": parent,
                "children": [],
                "message": {
                    "id": f"{conv_id}-old",
                    "author": {"role": "user"},
                    "create_time": start - 5,
                    "content": {
                        "content_type": "text",
                        "parts": ["An edited-away question that must not appear."],
                    },
                },
            }
            mapping[parent]["children"].append(f"{conv_id}-old")
        parent = node
    return {
        "title": title,
        "create_time": start,
        "update_time": start + 3600,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": conv_id,
        "id": conv_id,
    }


def chatgpt_export() -> list[dict[str, Any]]:
    first = chatgpt_conversation(
        "c-1",
        "Moving house",
        [
            ("user", "I moved to Lisbon in March 2023."),
            ("assistant", "Lisbon is a lovely city to live in."),
            ("user", "My sister Ana lives in Porto."),
        ],
        branch=True,
    )
    # a hidden system message with no text, a turn with an image part and a null create_time
    first["mapping"]["c-1-n0"]["message"]["content"]["parts"].append({"content_type": "image_asset_pointer"})
    first["mapping"]["c-1-n2"]["message"]["create_time"] = None
    system = {
        "id": "c-1-sys",
        "parent": "root",
        "children": ["c-1-n0"],
        "message": {
            "id": "c-1-sys",
            "author": {"role": "system"},
            "create_time": None,
            "content": {"content_type": "text", "parts": ["You are a helpful assistant (hidden)."]},
            "metadata": {"is_visually_hidden_from_conversation": True},
        },
    }
    first["mapping"]["root"]["children"] = ["c-1-sys", "c-1-old"]
    first["mapping"]["c-1-sys"] = system
    first["mapping"]["c-1-n0"]["parent"] = "c-1-sys"
    first["mapping"]["c-1-old"]["parent"] = "root"
    second = chatgpt_conversation(
        "c-2",
        "Coffee",
        [
            ("user", "I drink my coffee black."),
            ("tool", "Search results: coffee shops near you."),
            ("assistant", "Noted: you take your coffee black."),
        ],
        start=T0 + 86_400,
    )
    second["mapping"]["c-2-n1"]["message"]["author"]["name"] = "browser"
    return [first, second]


def claude_export() -> list[dict[str, Any]]:
    return [
        {
            "uuid": "k-1",
            "name": "Travel plans",
            "created_at": "2024-03-01T09:00:00.000000+00:00",
            "updated_at": "2024-03-01T10:00:00Z",
            "account": {"uuid": "acct"},
            "chat_messages": [
                {
                    "uuid": "k-1-a",
                    "sender": "human",
                    "text": "I am flying to Tokyo in May.",
                    "content": [{"type": "text", "text": "I am flying to Tokyo in May."}],
                    "created_at": "2024-03-01T09:00:05Z",
                    "attachments": [],
                    "files": [],
                },
                {
                    "uuid": "k-1-b",
                    "sender": "assistant",
                    "text": "",
                    "content": [
                        {"type": "text", "text": "Tokyo in May is pleasant."},
                        {"type": "tool_use", "name": "web_search", "input": {"q": "tokyo"}},
                        {"type": "text", "text": "Pack a light jacket."},
                    ],
                    "created_at": "2024-03-01T09:00:09Z",
                },
                {
                    "uuid": "k-1-c",
                    "sender": "human",
                    "text": "My passport expires in 2030.",
                    "created_at": None,
                },
            ],
        },
        {
            "uuid": "k-2",
            "name": "",
            "created_at": "2024-04-02T08:00:00Z",
            "chat_messages": [
                {
                    "uuid": "k-2-a",
                    "sender": "human",
                    "text": "I prefer aisle seats.",
                    "created_at": "2024-04-02T08:00:01Z",
                }
            ],
        },
    ]


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_zip(path: Path, conversations: Any, *, folder: str = "") -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{folder}user.json", json.dumps({"id": "user-1"}))
        zf.writestr(f"{folder}conversations.json", json.dumps(conversations))
        zf.writestr(f"{folder}chat.html", "<html></html>")
    return path
