"""What the simulated Jetson knows of each device kind, one description per kind, in one place.

The frequency tables and presets come from resources/devices/KIND.json (read by perfmodel and
simkernel); this file holds the rest: the device-tree model, the L4T release line, the GPU's
devfreq name, the CPU cluster name nvpmodel.conf uses, the INA3221 rails and the thermal zones
(simkernel), and the performance scaling against the calibrated AGX Orin (calibrate.py writes
it into profiles.json). Everything here is SIMULATED: plausible, not measured (docs/simulator.md,
"Other devices"). Standard library only, Python 3.8+.

A rail's share says which power parts it carries: {"cpu": a, "gpu": b, "mem": c, "static": d}
(fractions of each part); the rails in the device's total (the agent's INPUT_RAILS) carry each
part exactly once, the others are sub-rails.
"""

# Rails of the p3767 (Orin NX / Orin Nano) and p3668 (Xavier NX) modules: the module input and
# two sub-rails.
_MODULE_INPUT_RAILS = [
    ("1-0040", "hwmon1", [
        ("VDD_IN", {"cpu": 1.0, "gpu": 1.0, "mem": 1.0, "static": 1.0}),
        ("VDD_CPU_GPU_CV", {"cpu": 1.0, "gpu": 1.0, "static": 0.1}),   # sub-rails
        ("VDD_SOC", {"mem": 0.5, "static": 0.3}),
    ]),
]
_ORIN_THERMAL_SMALL = [("cpu-thermal", 2.2), ("gpu-thermal", 2.4), ("soc0-thermal", 2.1),
                       ("tj-thermal", 2.5)]
_R35_4_1 = ("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, "
            "DATE: Tue Aug  1 19:57:35 UTC 2023")
# JetPack 6.2 (the Super clocks on Orin Nano and Orin NX).
_R36_4_3 = ("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, "
            "DATE: Wed Jan  8 01:49:37 UTC 2025")

DEVICES = {
    "orin-agx": {
        "model": "NVIDIA Jetson AGX Orin Developer Kit (simulated)",
        "l4t": _R35_4_1,
        "gpu_devfreq": "17000000.ga10b",
        "cpu_cluster": "CPU_A78",
        "rails": [
            ("1-0040", "hwmon3", [
                ("VDD_GPU_SOC", {"gpu": 1.0, "static": 0.35, "mem": 0.1}),
                ("VDD_CPU_CV", {"cpu": 1.0, "static": 0.1}),
                ("VIN_SYS_5V0", {"mem": 0.9, "static": 0.55}),
            ]),
            ("1-0041", "hwmon4", [
                ("VDDQ_VDD2_1V8AO", {"mem": 0.5, "static": 0.05}),   # a sub-rail, not in the total
            ]),
        ],
        "thermal": [("cpu-thermal", 0.7), ("gpu-thermal", 0.75), ("soc0-thermal", 0.65),
                    ("tj-thermal", 0.8)],
        "perf": {"description": "measured device (factors 1)", "memory_gib": 28.0},
    },
    "xavier-agx": {
        "model": "NVIDIA Jetson AGX Xavier Developer Kit (simulated)",
        "l4t": "# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t186ref, EABI: aarch64, "
               "DATE: Fri Jun  9 04:25:08 UTC 2023",
        "gpu_devfreq": "17000000.gv11b",
        "cpu_cluster": "CPU_DENVER",
        "rails": [
            ("1-0040", "hwmon2", [
                ("GPU", {"gpu": 1.0}),
                ("CPU", {"cpu": 1.0}),
                ("SOC", {"static": 0.4, "mem": 0.3}),
            ]),
            ("1-0041", "hwmon3", [
                ("CV", {"static": 0.1}),
                ("VDDRQ", {"mem": 0.7}),
                ("SYS5V", {"static": 0.5}),
            ]),
        ],
        "thermal": [("CPU-therm", 0.85), ("GPU-therm", 0.9), ("AUX-therm", 0.75),
                    ("Tdiode_tegra", 0.95)],
        "perf": {
            "description": "Volta GPU with 512 CUDA cores (Orin: 2048 Ampere), 8 Carmel cores, "
                           "256-bit LPDDR4x (same bytes per EMC clock as Orin's LPDDR5)",
            "gpu_time": 2.4, "mem_time": 1.0, "cpu_time": 1.35,
            "gpu_power": 0.85, "mem_power": 0.9, "cpu_power": 1.3, "static_w": 7.0,
            "memory_gib": 28.0,
        },
    },
    "orin-nano": {
        "model": "NVIDIA Jetson Orin Nano Developer Kit (simulated)",
        "l4t": _R35_4_1,
        "gpu_devfreq": "17000000.ga10b",
        "cpu_cluster": "CPU_A78",
        "rails": _MODULE_INPUT_RAILS,
        "thermal": _ORIN_THERMAL_SMALL,
        "perf": {
            "description": "Ampere GPU with 1024 CUDA cores, 6 A78AE cores, 128-bit LPDDR5 "
                           "(half the bytes per EMC clock)",
            "gpu_time": 2.0, "mem_time": 2.0, "cpu_time": 1.0,
            "gpu_power": 0.3, "mem_power": 0.3, "cpu_power": 0.5, "static_w": 3.0,
            "memory_gib": 6.0,
        },
    },
    # The same module as orin-nano on JetPack 6.2: the same silicon, so the same per-clock
    # factors; only its tables (higher top clocks) and its power at those clocks differ.
    "orin-nano-super": {
        "model": "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super (simulated)",
        "l4t": _R36_4_3,
        "gpu_devfreq": "17000000.gpu",
        "cpu_cluster": "CPU_A78",
        "rails": _MODULE_INPUT_RAILS,
        "thermal": _ORIN_THERMAL_SMALL,
        "perf": {
            "description": "SIMULATED: the Orin Nano's silicon (1024 Ampere cores, 6 A78AE, 128-bit "
                           "LPDDR5) at the Super clocks; dynamic power at the higher top clocks "
                           "about 1.6x the Orin Nano's (25 W preset)",
            "gpu_time": 2.0, "mem_time": 2.0, "cpu_time": 1.0,
            "gpu_power": 0.5, "mem_power": 0.4, "cpu_power": 0.6, "static_w": 3.0,
            "memory_gib": 6.0,
        },
    },
    "orin-nx": {
        "model": "NVIDIA Jetson Orin NX Engineering Reference Developer Kit (simulated)",
        "l4t": _R36_4_3,
        "gpu_devfreq": "17000000.gpu",
        "cpu_cluster": "CPU_A78",
        "rails": _MODULE_INPUT_RAILS,
        "thermal": [("cpu-thermal", 1.9), ("gpu-thermal", 2.1), ("soc0-thermal", 1.8),
                    ("tj-thermal", 2.2)],
        "perf": {
            "description": "SIMULATED: Ampere GPU with 1024 CUDA cores (the Orin Nano's), 8 A78AE "
                           "cores, 128-bit LPDDR5 at 3199 MHz; 25 W module",
            "gpu_time": 2.0, "mem_time": 2.0, "cpu_time": 1.0,
            "gpu_power": 0.4, "mem_power": 0.4, "cpu_power": 0.6, "static_w": 4.0,
            "memory_gib": 13.0,
        },
    },
    "xavier-nx": {
        "model": "NVIDIA Jetson Xavier NX Developer Kit (simulated)",
        "l4t": "# R35 (release), REVISION: 6.0, GCID: 36923193, BOARD: t186ref, EABI: aarch64, "
               "DATE: Fri Jul 19 23:24:25 UTC 2024",
        "gpu_devfreq": "17000000.gv11b",
        "cpu_cluster": "CPU_DENVER",
        "rails": _MODULE_INPUT_RAILS,
        "thermal": [("CPU-therm", 2.0), ("GPU-therm", 2.2), ("AUX-therm", 1.8),
                    ("Tdiode_tegra", 2.3)],
        "perf": {
            "description": "SIMULATED: Volta GPU with 384 CUDA cores (AGX Xavier: 512), 6 Carmel "
                           "cores, 128-bit LPDDR4x (half the AGX Xavier's bytes per EMC clock); "
                           "20 W module",
            "gpu_time": 3.2, "mem_time": 2.0, "cpu_time": 1.35,
            "gpu_power": 0.35, "mem_power": 0.4, "cpu_power": 0.7, "static_w": 3.0,
            "memory_gib": 6.0,
        },
    },
    "agx-thor": {
        "model": "NVIDIA Jetson AGX Thor Developer Kit (simulated)",
        "l4t": "# R38 (release), REVISION: 2.1, GCID: 41880208, BOARD: generic, EABI: aarch64, "
               "DATE: Fri Sep 26 02:17:22 UTC 2025",
        "gpu_devfreq": "gpu-gpc-0",
        "cpu_cluster": "CPU_NEOVERSE",
        "rails": [
            ("1-0040", "hwmon1", [
                ("VDD_GPU", {"gpu": 1.0, "static": 0.3, "mem": 0.1}),
                ("VDD_CPU_SOC_MSS", {"cpu": 1.0, "static": 0.35, "mem": 0.2}),
                ("VIN_SYS_5V0", {"mem": 0.7, "static": 0.35}),
            ]),
        ],
        "thermal": [("cpu-thermal", 0.4), ("gpu-thermal", 0.45), ("soc0-thermal", 0.35),
                    ("tj-thermal", 0.5)],
        "perf": {
            "description": "SIMULATED: Blackwell GPU with 2560 CUDA cores (Orin: 2048 Ampere; "
                           "about 1.25x the training work per core and clock assumed), 14 "
                           "Neoverse-V3AE cores (wider than A78AE), 256-bit LPDDR5X; 130 W module",
            "gpu_time": 0.65, "mem_time": 1.0, "cpu_time": 0.65,
            "gpu_power": 1.9, "mem_power": 1.4, "cpu_power": 1.3, "static_w": 14.0,
            "memory_gib": 112.0,
        },
    },
}

KINDS = tuple(DEVICES)


def fact(device, name):
    """One fact of one device; KeyError naming the known devices for an unknown one."""
    try:
        return DEVICES[device][name]
    except KeyError:
        raise KeyError("unknown simulated device %r (known: %s)" % (device, ", ".join(KINDS)))
