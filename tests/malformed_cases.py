"Messages malformed in memory, one of each kind, for the tests that check every reader names them"
from dialog.core import *

def malformed(kind):
    "A dialog, and its message 'bad1' malformed as `kind` says (message type letter, then what is wrong)"
    d = Dialog('d'); d.mk_message('q', msg_type=sprompt, output='a')
    typ = {'c':scode, 'n':snote, 'p':sprompt}[kind[0]]
    m = d.mk_message('x', msg_type=typ, id='bad1', output='r' if typ==sprompt else [])
    k = kind[2:]
    if k=='content': m.content = 5
    elif k=='meta': m.meta = 'x'
    elif k=='type': m._msg_type = 5
    elif k=='reply': m.ai_res = 5
    return d,m

kinds = ['c:content', 'n:content', 'p:content', 'c:meta', 'c:type', 'n:type', 'p:reply']
