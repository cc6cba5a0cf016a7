"""Development and test tooling: `make run` (`devrun`, `simulator`), `make chaos` (`chaos`),
throwaway databases (`databases`) and what the benchmarks share (`bench`).

Never imported by a service: the runtime library is `teenpatti`.
"""
