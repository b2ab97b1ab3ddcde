# Format widths, precisions and fills count code points, not UTF-8 bytes (seed 001_04's
# f"{'模式':<20}" table header was 6 spaces short).
print(f"{'模式':<20}|{'é':>6}|{'ü':^5}|")
print("{:>6}|{:<4}|".format("é", "模"))
print("%-5s|%5s|" % ("ü", "模式"))
print(f"{'x':─^7}|{'模':*>4}|{'abcdef':.3}|{'模式ab':.3}|")
print(f"{'naïve':^9}|{'':─<3}|{'日本語':>2}|")
print("%5s|%-5s|%.2s|%5r|%-6r|" % ("ab", "ab", "abc", "x", "y"))
