"Helpers for the tests of running"

def as_shown(s):
    "Stream text `s` as a terminal (and Jupyter's frontends) show it, one character at a time: a carriage return followed by more text on its line drops what came before it; a backspace drops the character before it. Written apart from `merge_streams`, to check it"
    res = []
    for line in s.split('\n'):
        cur = []
        for i,ch in enumerate(line):
            if ch=='\r' and i<len(line)-1: cur = []
            elif ch=='\b' and cur: cur.pop()
            else: cur.append(ch)
        res.append(''.join(cur))
    return '\n'.join(res)
