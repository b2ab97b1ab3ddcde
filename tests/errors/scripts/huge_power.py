# An int of 3 * 10**12 bits does not fit the memory limit: MemoryError at once, not hours of work.
x = 10 ** 10 ** 12
