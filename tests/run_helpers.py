"Helpers for the tests of running"

def as_shown(s, keep_cr=False):
    "Stream text `s` as a terminal (and Jupyter's frontends) show it, one character at a time: a carriage return followed by more text on its line (not just more returns) drops what came before it; a backspace drops the character before it. With `keep_cr`, the first line keeps one such return in front, for the earlier output it takes back. Written apart from `jupyter_streams`, to check it"
    res = []
    for n,line in enumerate(s.split('\n')):
        cur,cr = [],''
        for i,ch in enumerate(line):
            if ch=='\r' and line[i+1:].strip('\r'): cur,cr = [],'\r'*(keep_cr and n==0)
            elif ch=='\b' and cur: cur.pop()
            else: cur.append(ch)
        res.append(cr + ''.join(cur))
    return '\n'.join(res)
