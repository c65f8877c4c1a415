"""The kernel's CPU list format ("0-3,8,10-11"), for the integration tests' checks of where slices ran."""


def cpus(text):
    """The set of CPU numbers in a list such as "0-3,8"; the empty string is the empty set."""
    out = set()
    for part in filter(None, text.strip().split(",")):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
