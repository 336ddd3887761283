# verdict: bad_output
# detail: before being asked
from _tron import answer, free_heading, read_map

rows = read_map()
answer(free_heading(rows) + "\n" + "2\n2\n2\n")
while read_map() is not None:
    answer("2\n")
