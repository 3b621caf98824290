"""Paths shared by the simulator tests."""

import os
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SIM_DIR = os.path.join(TOP, "remote", "simulator")
AGENT_DIR = os.path.join(TOP, "remote", "agent")
DATA_DIR = os.environ.get("PTWB_DATA_DIR", os.path.normpath(os.path.join(TOP, "..", "shared", "data")))
if SIM_DIR not in sys.path:
    sys.path.insert(0, SIM_DIR)
if AGENT_DIR not in sys.path:
    sys.path.insert(0, AGENT_DIR)  # ptwb_helper: the KernelFiles the simulated helper uses
