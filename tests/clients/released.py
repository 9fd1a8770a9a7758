#!/usr/bin/env python3
"""Reads `vigil state` on stdin; prints "released" when the paused
container's memory section says pause --release-memory freed at least
argv[1] MiB, else the section itself (what the test then shows)."""

import json
import sys

memory = json.load(sys.stdin).get("memory", {})
release = memory.get("release")
enough = int(sys.argv[1]) << 20
print("released" if release and release["before"] - release["after"] >= enough else memory)
