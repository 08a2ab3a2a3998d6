"""What the bench says about the machine it ran on: the CPU model and the BLAS library."""

from __future__ import annotations

from benchmarks import machine

#: the first lines of /proc/cpuinfo on a 2-core KVM guest, where the name alone says little
CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 207
model name\t: Intel(R) Xeon(R) Processor
stepping\t: 2

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: another name
"""


def test_cpu_model_names_the_first_processor_with_its_numbers():
    assert machine.cpu_model(CPUINFO) == "Intel(R) Xeon(R) Processor (GenuineIntel, family 6, model 207, stepping 2)"


def test_cpu_model_without_cpuinfo_still_says_something():
    assert machine.cpu_model("")  # the platform's word (an ARM Mac has no /proc/cpuinfo)


def test_machine_info_has_the_cpu_and_numpys_blas():
    info = machine.machine_info()
    assert info["cpu"] == machine.cpu_model()
    assert info["numpy_blas"].get("name"), info["numpy_blas"]  # numpy 2 states the BLAS it was built with
    summary = machine.blas_summary(info)
    assert summary.startswith(f"numpy built with {info['numpy_blas']['name']}"), summary
    for loaded in info["blas"]:
        assert f"{loaded['library']}" in summary and f"{loaded['threads']} threads)" in summary, summary
