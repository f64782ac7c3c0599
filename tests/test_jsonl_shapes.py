"""JSON Lines training shapes (`dlgs2jsonl(..., shape=...)`), each checked by its consumer: transformers' `apply_chat_template` with real
chat templates on a tokenizer built locally (`hf`), trl's own format checks and template application (`trl`, `sharegpt`), and OpenAI's
documented fine-tuning rules written as a checker (`openai_ft`); the default `chat` shape is what it always was"""
import base64, json, pytest
from pathlib import Path
from hypothesis import given, note, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.chat import *
from dialog.chat import _listed, _round_thoughts
from dialog.dataset import paths2jsonl, export_folder
from chat_checks import sdk_valid
from cli_helpers import nbd, ok
from test_chat_providers import dialogs

transformers = pytest.importorskip('transformers')
trl_data = pytest.importorskip('trl.data_utils')
from tokenizers import Tokenizer
from tokenizers.models import WordLevel

# ---------- real chat templates, as the models' tokenizer_config.json publishes them (whitespace control kept; comments left out) ----------
# ChatML, the template of the ChatML models (e.g. teknium/OpenHermes-2.5-Mistral-7B)
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
# Qwen/Qwen2.5-7B-Instruct: tools as JSON in the system turn; `arguments | tojson` (a string would be written as a JSON string)
QWEN25 = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
# meta-llama/Llama-3.1-8B-Instruct, its JSON tool calling (the built-in tools branches left out): tools in the first user turn, one call per assistant message, `arguments | tojson`
LLAMA31 = """{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- set date_string = "26 Jul 2024" %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}
{%- if tools is not none %}
    {{- "Environment: ipython\\n" }}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\\n" }}
{{- "Today Date: " + date_string + "\\n\\n" }}
{{- system_message }}
{{- "<|eot_id|>" }}
{%- if tools_in_user_message and not tools is none %}
    {%- if messages | length != 0 %}
        {%- set first_user_message = messages[0]['content']|trim %}
        {%- set messages = messages[1:] %}
    {%- else %}
        {{- raise_exception("Cannot put tools in the first user message when there's no first user message!") }}
    {%- endif %}
    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}
    {{- "Given the following functions, please respond with a JSON for a function call " }}
    {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\\n\\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\\n\\n" }}
    {%- endfor %}
    {{- first_user_message + "<|eot_id|>"}}
{%- endif %}
{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}
        {{- '{"name": "' + tool_call.name + '", ' }}
        {{- '"parameters": ' }}
        {{- tool_call.arguments | tojson }}
        {{- "}" }}
        {{- "<|eot_id|>" }}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}
"""

# google/gemma-2-9b-it: no system role, and user and model turns must alternate (Mistral-Instruct's and Llama 2's templates have the same check)
GEMMA2 = ("{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
          "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
          "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
          "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
          "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}")

def tokenizer(template):
    "A tokenizer built locally from a one-word `tokenizers` model (no download), with `template` as its chat template"
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer(WordLevel({'[UNK]': 0}, unk_token='[UNK]')), bos_token='<s>', eos_token='</s>')
    tok.chat_template = template
    return tok
toks = {k: tokenizer(t) for k, t in dict(chatml=CHATML, qwen=QWEN25, llama=LLAMA31, gemma=GEMMA2).items()}

# ---------- OpenAI's fine-tuning rules, as its docs state them ----------
# https://platform.openai.com/docs/guides/supervised-fine-tuning (each line one example: `messages`, with `tools` and `parallel_tool_calls`
#   for tool calling; `weight` 0 or 1 on assistant messages), the API reference's fine-tuning chat input (FineTuneChatRequestInput:
#   messages, tools, parallel_tool_calls, functions), and the cookbook's format checks
#   (https://cookbook.openai.com/examples/chat_finetuning_data_prep: a dict with a non-empty `messages` list, each message with a role and
#   content, no unrecognized keys, at least one assistant message); its tool-calling example ends with an assistant message of `tool_calls`
#   and no tool message (https://learn.microsoft.com/azure/ai-services/openai/how-to/fine-tuning-functions, Azure's copy of the guide);
#   images as the vision fine-tuning guide takes them (https://developers.openai.com/api/docs/guides/vision-fine-tuning: JPEG, PNG or WEBP,
#   10 MB each, 10 an example), the limits `ft_img_limits` holds
OA_LINE_KEYS = {'messages', 'tools', 'parallel_tool_calls'}
OA_MSG_KEYS = dict(system={'role', 'content', 'name'}, user={'role', 'content', 'name'}, tool={'role', 'content', 'tool_call_id'},
                   assistant={'role', 'content', 'name', 'tool_calls', 'refusal', 'weight'})
import re
fn_name = re.compile(r'[a-zA-Z0-9_-]{1,64}')

def openai_ft_rules(line):
    "An OpenAI chat fine-tuning example: raises AssertionError naming the rule broken"
    assert isinstance(line, dict) and set(line) <= OA_LINE_KEYS, f'unrecognized line keys {set(line) - OA_LINE_KEYS}'
    ms = line['messages']
    assert isinstance(ms, list) and ms, 'missing messages list'
    defined = set()
    for t in line.get('tools', []):
        assert t['type'] == 'function' and fn_name.fullmatch(t['function']['name']), f'bad tool {t!r:.80}'
        assert t['function']['parameters']['type'] == 'object', 'tool parameters must be a JSON schema object'
        defined.add(t['function']['name'])
    pending, imgs = [], 0
    for i, m in enumerate(ms):
        r = m.get('role')
        assert r in OA_MSG_KEYS, f'message {i}: unrecognized role {r!r}'
        assert set(m) <= OA_MSG_KEYS[r], f'message {i}: unrecognized keys {set(m) - OA_MSG_KEYS[r]}'
        assert 'content' in m, f'message {i}: missing content'
        assert not pending or r == 'tool', f'message {i}: tool calls {pending} not answered'
        if 'weight' in m: assert m['weight'] in (0, 1) and type(m['weight']) is int, f'message {i}: weight must be 0 or 1'
        if r == 'assistant':
            assert (isinstance(m['content'], str) and m['content'].strip()) or m.get('tool_calls'), f'message {i}: assistant message without content or tool calls'
            for tc in m.get('tool_calls', []):
                assert tc['type'] == 'function' and isinstance(tc['id'], str) and tc['id'], f'message {i}: bad tool call'
                assert isinstance(json.loads(tc['function']['arguments']), dict), f'message {i}: arguments must be a JSON object as text'
                assert tc['function']['name'] in defined, f"message {i}: function {tc['function']['name']!r} called but not defined in tools"
                pending.append(tc['id'])
        elif r == 'tool':
            assert m['tool_call_id'] == (pending and pending[0]), f'message {i}: tool result for {m["tool_call_id"]!r}, expected {pending[:1]}'
            pending.pop(0)
            assert isinstance(m['content'], str), f'message {i}: tool content must be text'
        else:
            assert isinstance(m['content'], (str, list)), f'message {i}: content must be a string or parts'
            for p in m['content'] if isinstance(m['content'], list) else []:
                if p['type'] != 'image_url': continue
                imgs += 1
                url = p['image_url']['url']
                if not url.startswith('data:'): continue  # by URL: OpenAI fetches it
                raw = base64.b64decode(url.split(',', 1)[1])
                assert img_type(raw) in ft_img_limits['mimes'], f'message {i}: a {img_type(raw) or url[:30]} image: JPEG, PNG or WEBP only'
                assert len(raw) <= ft_img_limits['bytes'], f'message {i}: an image of {len(raw)} bytes: 10 MB at most'
    assert imgs <= ft_img_limits['images'], f'{imgs} images: at most {ft_img_limits["images"]} an example'
    # the calls of the last assistant message may go unanswered: the line ends in them, as the guide's tool-calling example does
    assert not pending or pending == [tc['id'] for tc in ms[-1].get('tool_calls') or []], f'tool calls {pending} never answered'
    assert any(m['role'] == 'assistant' for m in ms), 'example missing assistant message'
    sdk_valid([{k: v for k, v in m.items() if k != 'weight'} for m in ms], 'openai')  # and, weight aside, Chat Completions messages the SDK's types accept

# ---------- the consumers ----------
def text_only(ms):
    "Chat-template safe messages: every content a plain string, every call's arguments a mapping"
    for m in ms:
        assert isinstance(m['content'], str), f'content of a {m["role"]} message is {type(m["content"]).__name__}'
        for tc in m.get('tool_calls', []): assert isinstance(tc['function']['arguments'], dict)

def rendered(ms, tools, tok='qwen', **kw):
    return toks[tok].apply_chat_template(ms, tools=tools, tokenize=False, **kw)

def hf_check(line):
    "The `hf` line through transformers' apply_chat_template: ChatML for plain talk, Qwen2.5 with tools, Llama 3.1 where it takes the calls"
    ms, tools = line['messages'], line.get('tools')
    text_only(ms)
    q = rendered(ms, tools)
    for m in ms:
        if m['content']: assert m['content'] in q  # rendered as the text it is
        for tc in m.get('tool_calls', []): assert f'"name": "{tc["function"]["name"]}", "arguments": ' in q
    if not tools: rendered(ms, None, 'chatml')
    talk = [m for m in ms if m['role'] != 'system']
    if not tools and talk and talk[0]['role'] == 'user' and all(m['role'] in ('user', 'assistant') for m in talk): rendered(talk, None, 'gemma')  # turns alternate
    if all(len(m.get('tool_calls', [])) <= 1 for m in ms) and ms[0]['role'] in ('system', 'user'): rendered(ms, tools, 'llama')

def trl_check(row):
    assert trl_data.is_conversational(row)
    text_only(row['prompt'] + row['completion'])
    assert row['completion'][0]['role'] == 'assistant' and row['prompt'][-1]['role'] == 'user'
    out = trl_data.maybe_apply_chat_template(row, toks['qwen'], tools=row.get('tools'))
    assert isinstance(out['prompt'], str) and isinstance(out['completion'], str)
    assert out['prompt'] + out['completion'] == rendered(row['prompt'] + row['completion'], row.get('tools'))

SG_ROLES = {'system', 'human', 'gpt', 'function_call', 'observation'}
def sharegpt_check(row):
    assert trl_data.is_conversational_from_value(row)
    conv = row['conversations']
    assert conv and all(set(t) == {'from', 'value'} and t['from'] in SG_ROLES and isinstance(t['value'], str) for t in conv)
    for i, t in enumerate(conv):
        if t['from'] == 'function_call':
            cs = json.loads(t['value'])
            assert all(isinstance(c['name'], str) and isinstance(c['arguments'], dict) for c in (cs if isinstance(cs, list) else [cs]))
            assert i+1 < len(conv) and conv[i+1]['from'] == 'observation', 'a function_call answered by an observation'
        if t['from'] == 'observation': assert conv[i-1]['from'] == 'function_call'
        if t['from'] == 'system': assert i == 0
    if 'tools' in row: assert all({'name', 'parameters'} <= set(f) for f in json.loads(row['tools']))
    assert llamafactory_ok(row), [t['from'] for t in conv]
    chatml = trl_data.maybe_convert_to_chatml(json.loads(json.dumps(row)))  # it renames keys in place
    assert [m['content'] for m in chatml['messages']] == [t['value'] for t in conv] and [m['role'] for m in chatml['messages']] == [t['from'] for t in conv]

checks = dict(openai_ft=openai_ft_rules, hf=hf_check, trl=trl_check, sharegpt=sharegpt_check)

# ---------- dialogs ----------
def tool_dlg(name='tools'):
    d = Dialog(name)
    d.system = 'Be brief.'
    d.mk_message('We load sales first.', msg_type=snote, id='n1')
    d.mk_message('df = load()', msg_type=scode, id='c1', output=code_output('1200'))
    d.mk_message('How many rows?', msg_type=sprompt, output=think_block('Count them.') + '\n\n' + tool_block('call_1', 'count_rows', {'table': 'sales'}, '1200') + '\n\nThere are 1,200 rows.')
    d.mk_message('And the averages?', msg_type=sprompt, output=tool_block('call_2', 'avg', {'col': 'price'}, '9.5') + '\n' + tool_block('call_3', 'avg', {'col': 'qty', 'digits': 2}, '3.25') + '\n\nPrice 9.5, quantity 3.25.', meta={'dialog': {'weight': 0}})
    return d

def img_dlg():
    d = Dialog('pic')
    m = d.mk_message('What is this?\n\n![a](attachment:a.png)', msg_type=sprompt, id='p1', output='A dot.')
    m.mk_attachment(tiny_png, 'image/png', 'a.png')
    return d

def plain_dlg():
    d = Dialog('plain'); d.mk_message('hi', msg_type=sprompt, output='hello'); d.mk_message('bye', msg_type=sprompt, output='see you')
    return d

def lines(p): return [json.loads(l) for l in Path(p).read_text(encoding='utf-8').split('\n') if l]  # only \n ends a line (U+0085 and kin may stand in one)

@pytest.mark.parametrize('shape', list(checks))
def test_each_shape_taken_by_its_consumer(shape, tmp_path):
    "Tool calls (one, and two made together), a system prompt, context, thinking and a weight: each shape's line passes its consumer's check"
    ls = lines(dlgs2jsonl([tool_dlg(), plain_dlg()], tmp_path/'x.jsonl', shape=shape))
    assert len(ls) == 2
    for l in ls: checks[shape](l)

def test_default_is_what_it_was(tmp_path):
    "The default shape is 'chat': every content a list of parts, as before; naming it gives the same bytes; and it is what chat templates choke on"
    dl = [tool_dlg(), plain_dlg(), img_dlg()]
    a, b = dlgs2jsonl(dl, tmp_path/'a.jsonl'), dlgs2jsonl(dl, tmp_path/'b.jsonl', shape='chat')
    assert a.read_bytes() == b.read_bytes()
    assert [l['messages'] for l in lines(a)] == [[_listed(m) for m in dlg2chat(d, weights=True)] for d in dl]
    with pytest.raises(Exception): toks['chatml'].apply_chat_template(lines(a)[1]['messages'], tokenize=False)  # content as a list of parts
    toks['chatml'].apply_chat_template(lines(dlgs2jsonl(dl[1:2], tmp_path/'h.jsonl', shape='hf'))[0]['messages'], tokenize=False)

def test_tools_weight_reasoning(tmp_path):
    ft = lines(dlgs2jsonl([tool_dlg()], tmp_path/'o.jsonl', shape='openai_ft'))[0]
    assert [t['function']['name'] for t in ft['tools']] == ['count_rows', 'avg']
    assert ft['tools'][1]['function']['parameters'] == {'type': 'object', 'properties': {'col': {'type': 'string'}, 'digits': {'type': 'integer'}}, 'required': ['col']}
    assert [m.get('weight') for m in ft['messages'] if m['role'] == 'assistant'] == [None, None, 0, 0]
    assert not any('reasoning_content' in m for m in ft['messages'])  # not in OpenAI's format
    hf = lines(dlgs2jsonl([tool_dlg()], tmp_path/'h.jsonl', shape='hf'))[0]
    asst = [m for m in hf['messages'] if m['role'] == 'assistant']
    assert [m.get('reasoning_content') for m in asst] == ['Count them.', None, None, None]  # on the round that thought
    assert asst[2]['tool_calls'][1]['function']['arguments'] == {'col': 'qty', 'digits': 2}
    assert [m['name'] for m in hf['messages'] if m['role'] == 'tool'] == ['count_rows', 'avg', 'avg']
    assert 'tools' not in lines(dlgs2jsonl([plain_dlg()], tmp_path/'p.jsonl', shape='hf'))[0]  # no call, no tools

def test_trl_split(tmp_path):
    d = tool_dlg(); d.mk_message('one more?', msg_type=sprompt)  # a prompt not yet answered: not in the row
    row = lines(dlgs2jsonl([d], tmp_path/'t.jsonl', shape='trl'))[0]
    assert [m['role'] for m in row['completion']] == ['assistant', 'tool', 'tool', 'assistant']
    assert row['prompt'][-1] == {'role': 'user', 'content': 'And the averages?'}
    trl_check(row)

def test_sharegpt_turns(tmp_path):
    row = lines(dlgs2jsonl([tool_dlg()], tmp_path/'s.jsonl', shape='sharegpt'))[0]
    assert [t['from'] for t in row['conversations']] == ['system', 'human', 'function_call', 'observation', 'gpt', 'human', 'function_call', 'observation', 'gpt']
    assert json.loads(row['conversations'][6]['value']) == [{'name': 'avg', 'arguments': {'col': 'price'}}, {'name': 'avg', 'arguments': {'col': 'qty', 'digits': 2}}]
    assert json.loads(row['conversations'][7]['value']) == ['9.5', '3.25']
    d = plain_dlg(); d.mk_message('', msg_type=sprompt, output='said with a call ' + tool_block('k', 'f', {}, 'r'))
    conv = lines(dlgs2jsonl([d], tmp_path/'t.jsonl', shape='sharegpt'))[0]['conversations'] # a last reply that ends on a result has no answer: it is left off
    assert conv[-1]['from'] == 'gpt' and not any('said with a call' in t['value'] for t in conv) and llamafactory_ok({'conversations': conv})
    d.mk_message('', msg_type=sprompt, output='and again') # a reply with no prompt before it: merged with the model's turn before it, so turns still alternate
    conv = lines(dlgs2jsonl([d], tmp_path/'u.jsonl', shape='sharegpt'))[0]['conversations']
    assert [t['from'] for t in conv] == ['human', 'gpt', 'human', 'function_call', 'observation', 'gpt'] and conv[-1]['value'] == 'and again'

def test_images_refused_or_dropped_or_kept(tmp_path):
    for s in ('hf', 'trl', 'sharegpt'):
        with pytest.raises(ValueError, match=f"dialog 1: dialog 'pic': message 'p1' sends an image, and shape '{s}' takes text only"):
            dlgs2jsonl([plain_dlg(), img_dlg()], tmp_path/f'{s}.jsonl', shape=s)
        assert not (tmp_path/f'{s}.jsonl').exists()
        assert len(lines(dlgs2jsonl([plain_dlg(), img_dlg()], tmp_path/f'{s}.jsonl', shape=s, drop='has_image'))) == 1
    ft = lines(dlgs2jsonl([img_dlg()], tmp_path/'o.jsonl', shape='openai_ft'))[0]
    openai_ft_rules(ft)
    assert ft['messages'][0]['content'][1]['type'] == 'image_url'

def test_empty_and_left_out(tmp_path):
    "Empty and skipped dialogs write no line in any shape; openai_ft, trl and sharegpt also leave out a conversation with no assistant turn; drop still works"
    empty, skipped, quiet = Dialog('empty'), Dialog('skipped'), Dialog('quiet')
    skipped.mk_message('q', msg_type=sprompt, output='a', meta={'skipped': True})
    quiet.mk_message('hello?', msg_type=sprompt)
    for s in jsonl_shapes:
        n = len(lines(dlgs2jsonl([empty, skipped, quiet, plain_dlg()], tmp_path/f'{s}.jsonl', shape=s)))
        assert n == (1 if s in ('openai_ft', 'trl', 'sharegpt') else 2), s
        assert len(lines(dlgs2jsonl([quiet, plain_dlg()], tmp_path/f'{s}d.jsonl', shape=s, drop='no_assistant'))) == 1
        assert lines(dlgs2jsonl([quiet, plain_dlg()], tmp_path/f'{s}e.jsonl', shape=s, drop=lambda ms: True)) == []
    d = Dialog('reply only'); d.mk_message('', msg_type=sprompt, output='unprompted')  # nothing before the assistant turn: `(no request)` is its prompt
    assert lines(dlgs2jsonl([d], tmp_path/'r.jsonl', shape='trl')) == [{'prompt': [{'role': 'user', 'content': '(no request)'}], 'completion': [{'role': 'assistant', 'content': 'unprompted'}]}]

def test_bad_shape(tmp_path):
    for bad in ('alpaca', None, 3):
        with pytest.raises(ValueError, match='the shapes are chat, openai_ft, hf, trl, sharegpt'): dlgs2jsonl([plain_dlg()], tmp_path/'x.jsonl', shape=bad)
        with pytest.raises(ValueError, match='the shapes are chat'): paths2jsonl([], tmp_path/'y.jsonl', shape=bad)
    with pytest.raises(ValueError, match="shape 'hf' is built from OpenAI messages: a history in format 'anthropic' goes with shape 'chat' only"):
        dlgs2jsonl([plain_dlg()], tmp_path/'x.jsonl', 'anthropic', shape='hf')
    with pytest.raises(ValueError, match="calls function 'a.b', a name OpenAI refuses"):
        d = plain_dlg(); d.mk_message('x', msg_type=sprompt, output=tool_block('k', 'a.b', {}, 'r')); dlgs2jsonl([d], tmp_path/'x.jsonl', shape='openai_ft')

@pytest.mark.parametrize('shape', list(jsonl_shapes))
def test_read_back(shape, tmp_path):
    "jsonl2dlgs reads every shape; written again in that shape, the dialogs give the same line"
    f = dlgs2jsonl([tool_dlg(), plain_dlg()], tmp_path/'a.jsonl', shape=shape)
    ds = jsonl2dlgs(f)
    assert dlgs2jsonl(ds, tmp_path/'b.jsonl', shape=shape).read_text() == f.read_text()
    if shape in ('hf', 'trl'): assert think_block('Count them.') in ds[0].messages[0].ai_res  # reasoning_content comes back as the reply's thinking

def test_dataset_and_cli(tmp_path):
    "dialog.dataset's writers and the command line pass the shape through (files read in other processes too)"
    src = tmp_path/'src'
    tool_dlg().save(src/'a.ipynb'); plain_dlg().save(src/'b.ipynb'); img_dlg().save(src/'c.ipynb')
    for workers in (0, 2):
        ls = lines(paths2jsonl(src, tmp_path/f'p{workers}.jsonl', workers=workers, shape='sharegpt', drop='has_image', force=True))
        assert len(ls) == 2 and all('conversations' in l for l in ls)
    assert all('prompt' in l for l in lines(paths2jsonl(src, tmp_path/'t.jsonl', shape='trl', drop='has_image')))
    assert 'hf' in jsonl_shapes and all('messages' in l for l in lines(dlgs2jsonl([tool_dlg()], tmp_path/'h.jsonl', shape='hf')))
    assert export_folder(src, tmp_path/'e.jsonl', workers=0, shape='openai_ft').endswith('3 dialogs, 3 lines')
    for l in lines(tmp_path/'e.jsonl'): openai_ft_rules(l)
    out = ok('convert', src/'a.ipynb', src/'b.ipynb', '--to', 'jsonl', '--shape', 'hf')
    for l in out.split('\n')[:-1]: hf_check(json.loads(l))
    ok('convert', src, '--to', 'jsonl', '--shape', 'trl', '--drop', 'has_image', '-o', tmp_path/'c.jsonl')
    for l in lines(tmp_path/'c.jsonl'): trl_check(l)
    ok('export', src, '-o', tmp_path/'x.jsonl', '--shape', 'sharegpt', '--drop', 'has_image')
    for l in lines(tmp_path/'x.jsonl'): sharegpt_check(l)
    r = nbd('convert', src/'a.ipynb', '--to', 'md', '--shape', 'hf')
    assert r.returncode == 2 and '--shape goes with --to jsonl only' in r.stderr
    r = nbd('export', src, '-o', tmp_path/'y.parquet', '--shape', 'hf')
    assert r.returncode == 2 and 'y.parquet: shape goes with a .jsonl output only' in r.stderr  # export_folder's refusal
    r = nbd('convert', src/'a.ipynb', '--to', 'jsonl', '--shape', 'alpaca')
    assert r.returncode == 2 and 'alpaca' in r.stderr

# ---------- any dialog ----------
@st.composite
def thinking_dialogs(draw):
    "The providers' generated dialogs, with thinking written into some replies: first, last, or before a tool block"
    d = draw(dialogs())
    for m in d.messages:
        if m.msg_type == sprompt and m.ai_res and draw(st.booleans()):
            r = m.ai_res
            end = len(r) - max((len(x) for x in ('\n\n*[Response interrupted]*', '\n🧠\n') if r.endswith(x)), default=0)  # before the host's trailing marks
            cuts = [0, end] + [m.start() for m in re.finditer(r'^(?:<details|```json \{\.tool\})', r, re.M)]  # not inside a block, which it would break
            cut = draw(st.sampled_from(cuts))
            m.output = r[:cut] + ('\n\n' if cut and r[cut-1] != '\n' else '') + think_block(draw(st.text(st.sampled_from('ab \n<!-:#'), min_size=1, max_size=20))) + '\n\n' + r[cut:]
    return d

def has_image(d): return jsonl_drops['has_image']([_listed(m) for m in dlg2chat(d)])
def n_images(d): return sum(p['type'] == 'image_url' for m in dlg2chat(d) if isinstance(m.get('content'), list) for p in m['content'])

@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(d=thinking_dialogs())
def test_any_dialog_every_shape(d, tmp_path_factory):
    "For any generated dialog: the default line is each message's content as a list of parts; every other shape's line passes its consumer's check, or (text-only shapes) the dialog sends an image and the error says so; the `hf` line holds all the thinking the replies show, in order"
    tmp = tmp_path_factory.mktemp('s')
    note(repr([(m.msg_type, m.content, m.ai_res if m.msg_type == sprompt else m.output, m.meta) for m in d.messages]))
    oa = dlg2chat(d, weights=True)
    chat = lines(dlgs2jsonl([d], tmp/'c.jsonl'))
    assert chat == ([] if all(m['role'] == 'system' for m in oa) else [{'messages': [dict(m, content=[{'type': 'text', 'text': m['content']}] if isinstance(m['content'], str) else m['content']) if 'content' in m and m['content'] is not None else m for m in oa]}])
    shown = [t for m in d.messages if m.msg_type == sprompt and not m.skipped for t in _round_thoughts(m.ai_res) if t]
    for s, check in checks.items():
        try: ls = lines(dlgs2jsonl([d], tmp/f'{s}.jsonl', shape=s))
        except ValueError as e:
            if s == 'openai_ft': assert "OpenAI's fine-tuning takes" in str(e) and n_images(d) > ft_img_limits['images'], str(e)  # the generated images are PNGs
            else: assert has_image(d) and 'sends an image' in str(e), str(e)
            continue
        for l in ls: check(l)
        if s == 'hf' and ls:  # all the thinking the replies show, in order, on the messages of their rounds
            assert '\n\n'.join(m['reasoning_content'] for m in ls[0]['messages'] if m.get('reasoning_content')) == '\n\n'.join(shown)
        if ls: assert dlgs2jsonl(jsonl2dlgs(tmp/f'{s}.jsonl'), tmp/'again.jsonl', shape=s).read_text() == (tmp/f'{s}.jsonl').read_text()

def llamafactory_ok(row):
    "LLaMA-Factory's rule for a ShareGPT line (its converter skips any other): after a system turn, human or observation and gpt or function_call in turn, an even count"
    msgs = row['conversations'][1:] if row['conversations'] and row['conversations'][0]['from'] == 'system' else row['conversations']
    return all(m['from'] in (('human', 'observation'), ('gpt', 'function_call'))[i%2] for i,m in enumerate(msgs)) and len(msgs)%2 == 0

def _dlg(name, *ms):
    d = Dialog(name)
    for c,t,o in ms: d.mk_message(c, msg_type=t, output=o)
    return d

def test_sharegpt_lines_alternate_and_end_with_the_model(tmp_path):
    "Text said with a call isn't a turn of its own, and turns after the model's last are left off: every line is one LLaMA-Factory keeps"
    ds = [_dlg('text_then_call', ('Rows?', sprompt, 'Let me count.\n\n' + tool_block('call_1', 'count', {'t': 's'}, '12') + '\n\n12 rows.')),
          _dlg('unanswered_last', ('hi', sprompt, 'hello'), ('and then?', sprompt, '')),
          _dlg('code_after_reply', ('hi', sprompt, 'hello'), ('x = 1', scode, code_output('1'))),
          _dlg('ends_on_result', ('Rows?', sprompt, tool_block('call_1', 'count', {'t': 's'}, '12'))),
          _dlg('no_reply', ('hi', sprompt, ''))]
    rows = lines(dlgs2jsonl(ds, tmp_path/'sg.jsonl', shape='sharegpt'))
    assert [[t['from'] for t in r['conversations']] for r in rows] == [['human', 'function_call', 'observation', 'gpt'], ['human', 'gpt'], ['human', 'gpt']] # a tool loop cut short has no answer: no line
    assert all(map(llamafactory_ok, rows))

def test_arguments_that_are_no_object_are_refused_not_emptied(tmp_path):
    "A call whose arguments text is cut short can't be a dict: the text-only shapes refuse the dialog, naming it; openai_ft sends the text as it came"
    hist = [{'role': 'user', 'content': 'Weather in Paris?'},
            {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Par'}}]},
            {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'sunny'}, {'role': 'assistant', 'content': 'Sunny.'}]
    d = chat2dlg(hist, 'openai', name='cut')
    for shape in ('hf', 'trl', 'sharegpt'):
        with pytest.raises(ValueError, match=r"dialog 'cut': a call of 'get_weather' has arguments that are no JSON object"): dlgs2jsonl([d], tmp_path/'x.jsonl', shape=shape)
    assert lines(dlgs2jsonl([d], tmp_path/'o.jsonl', shape='openai_ft'))[0]['messages'][1]['tool_calls'][0]['function']['arguments'] == '{"city": "Par'

def test_sharegpt_arguments_given_as_json_text_read_back_as_the_object(tmp_path):
    "Some ShareGPT datasets give a call's arguments as JSON text: read as the object it is, not as a string"
    sg = tmp_path/'sg.jsonl'
    sg.write_text(json.dumps({'conversations': [{'from': 'human', 'value': 'Weather in Paris?'},
        {'from': 'function_call', 'value': json.dumps({'name': 'get_weather', 'arguments': json.dumps({'city': 'Paris'})})},
        {'from': 'observation', 'value': 'sunny'}, {'from': 'gpt', 'value': 'Sunny.'}]}) + '\n')
    row = lines(dlgs2jsonl(jsonl2dlgs(sg), tmp_path/'hf.jsonl', shape='hf'))[0]
    assert row['messages'][1]['tool_calls'][0]['function']['arguments'] == {'city': 'Paris'}

def test_sharegpt_tools_define_only_the_calls_kept(tmp_path):
    "A tool loop left off the end of a line defines no function: `tools` holds what the kept turns call (hypothesis found a line whose `tools` named a call it had cut)"
    d = _dlg('cut_loop', ('Rows?', sprompt, tool_block('c1', 'count', {'t': 's'}, '12') + '\n\n12 rows.'), ('More?', sprompt, tool_block('c2', 'more', {}, 'x')))
    row = lines(dlgs2jsonl([d], tmp_path/'sg.jsonl', shape='sharegpt'))[0]
    assert [t['from'] for t in row['conversations']] == ['human', 'function_call', 'observation', 'gpt']
    assert [f['name'] for f in json.loads(row['tools'])] == ['count']

def test_turns_alternate_for_templates_that_check(tmp_path):
    "A prompt asked again with no answer between, or a reply continued after an empty prompt: `hf`, `trl` and `sharegpt` merge the two turns of one role, so Gemma's template (which refuses roles that don't alternate) takes every line"
    ds = [_dlg('asked_twice', ('first try', sprompt, ''), ('again, please', sprompt, 'Sure.')),
          _dlg('reply_went_on', ('q', sprompt, 'a1'), ('', sprompt, 'and a2'))]
    d = _dlg('weights', ('q1', sprompt, 'a1'), ('', sprompt, 'a2'))
    d.messages[0].meta.setdefault('dialog', {})['weight'] = 0
    hf = lines(dlgs2jsonl(ds, tmp_path/'hf.jsonl', shape='hf'))
    assert [l['messages'] for l in hf] == [[{'role': 'user', 'content': 'first try\n\nagain, please'}, {'role': 'assistant', 'content': 'Sure.'}],
                                           [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a1\n\nand a2'}]]
    for l in hf: hf_check(l); rendered(l['messages'], None, 'gemma')
    for r in lines(dlgs2jsonl(ds, tmp_path/'trl.jsonl', shape='trl')): trl_check(r); rendered(r['prompt'] + r['completion'], None, 'gemma')
    assert [[t['from'] for t in r['conversations']] for r in lines(dlgs2jsonl(ds, tmp_path/'sg.jsonl', shape='sharegpt'))] == [['human', 'gpt']]*2
    assert lines(dlgs2jsonl([d], tmp_path/'w.jsonl', shape='hf'))[0]['messages'][1]['weight'] == 1  # trained on when any part of it was

def test_a_reply_first_gets_a_user_turn_in_every_alternating_shape():
    "A dialog whose first prompt is blank opens with the model's reply: `hf`, `trl` and `sharegpt` give it a `(no request)` user turn first, as Anthropic's list does, so Gemma's, Mistral's and Llama 2's templates take the line and no reply is lost"
    import os, tempfile
    d = Dialog('opens_with_reply')
    d.mk_message('', msg_type='prompt', output='Welcome back: the build is green.')
    d.mk_message('What changed?', msg_type='prompt', output='Two files.')
    def line(shape):
        with tempfile.TemporaryDirectory() as td:
            p = os.path.join(td, 'x.jsonl'); dlgs2jsonl([d], p, shape=shape)
            return json.loads(open(p, encoding='utf-8').read())
    want = [('user', '(no request)'), ('assistant', 'Welcome back: the build is green.'), ('user', 'What changed?'), ('assistant', 'Two files.')]
    assert [(m['role'], m['content']) for m in line('hf')['messages']] == want
    t = line('trl')
    assert [(m['role'], m['content']) for m in t['prompt'] + t['completion']] == want and len(t['completion']) == 1
    sg = {'user': 'human', 'assistant': 'gpt'}
    assert [(c['from'], c['value']) for c in line('sharegpt')['conversations']] == [(sg[r], c) for r,c in want]

def test_a_call_not_answered_ends_the_line(tmp_path):
    "A session cut while a tool ran (Claude Code or Codex stopped, or the session still running) ends in calls with no result: `openai_ft`, `hf` and `trl` end the line with that turn, as OpenAI's tool-calling example ends; `sharegpt` leaves the loop off; a call the conversation went on after is answered (an empty result), never left unanswered"
    hist = [{'role': 'user', 'content': 'Weather in Paris?'}, {'role': 'assistant', 'content': 'Looking.'},
            {'role': 'user', 'content': 'And in Rome?'},
            {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'weather', 'arguments': '{"city": "Rome"}'}}]}]
    d = chat2dlg(hist, name='cut')
    ft = lines(dlgs2jsonl([d], tmp_path/'o.jsonl', shape='openai_ft'))[0]
    openai_ft_rules(ft)
    assert ft['messages'][-1]['tool_calls'][0]['id'] == 'call_1' and ft['tools'][0]['function']['name'] == 'weather'
    hf = lines(dlgs2jsonl([d], tmp_path/'h.jsonl', shape='hf'))[0]
    hf_check(hf)
    assert hf['messages'][-1]['tool_calls'][0]['function'] == {'name': 'weather', 'arguments': {'city': 'Rome'}}
    t = lines(dlgs2jsonl([d], tmp_path/'t.jsonl', shape='trl'))[0]
    trl_check(t)
    assert [m['role'] for m in t['completion']] == ['assistant'] and t['completion'][0]['tool_calls']
    assert [c['from'] for c in lines(dlgs2jsonl([d], tmp_path/'s.jsonl', shape='sharegpt'))[0]['conversations']] == ['human', 'gpt']
    d.mk_message('Never mind.', msg_type=sprompt, output='OK.')  # the conversation went on: the call gets its (empty) result
    ms = lines(dlgs2jsonl([d], tmp_path/'o2.jsonl', shape='openai_ft'))[0]['messages']
    assert ms[4] == {'role': 'tool', 'tool_call_id': 'call_1', 'content': ''}
    with pytest.raises(AssertionError, match='not answered'): openai_ft_rules({'messages': ms[:4] + ms[5:], 'tools': ft['tools']})  # the checker refuses a call left behind

def _pic(name, *imgs):
    "A dialog whose prompt sends images `imgs` (bytes, type)"
    d = Dialog(name)
    m = d.mk_message('What is this?\n\n' + '\n'.join(f'![a](attachment:a{i})' for i in range(len(imgs))), msg_type=sprompt, id='p1', output='A picture.')
    for i, (data, mime) in enumerate(imgs): m.mk_attachment(data, mime, f'a{i}')
    return d

GIF = base64.b64decode('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==')

def test_openai_ft_images_within_the_vision_rules(tmp_path):
    "OpenAI's vision fine-tuning takes JPEG, PNG and WEBP images of 10 MB at most, 10 an example: a dialog sending another is a bad one, its error naming the message and the rule; drop='has_image' and on_error='skip' leave it out; 'chat' (a request) sends it as before"
    big = b'\x89PNG\r\n\x1a\n' + bytes(ft_img_limits['bytes'])  # a PNG by its signature, over 10 MB
    bad = dict(gif=(_pic('gif', (GIF, 'image/gif')), "message 'p1' sends an image/gif image, and OpenAI's fine-tuning takes JPEG, PNG or WEBP only"),
               labelled=(_pic('labelled', (GIF, 'image/png')), "sends an image/gif image"),  # its bytes decide, as OpenAI reads them
               big=(_pic('big', (big, 'image/png')), f"message 'p1' sends an image/png image of {len(big):,} bytes, over the 10,000,000 bytes"),
               many=(_pic('many', *[(tiny_png, 'image/png')]*11), "it sends 11 images, and OpenAI's fine-tuning takes at most 10 per example"))
    for k, (d, err) in bad.items():
        with pytest.raises(ValueError, match=re.escape(f"dialog 1: dialog {k!r}: ") + '.*' + re.escape(err)): dlgs2jsonl([plain_dlg(), d], tmp_path/f'{k}.jsonl', shape='openai_ft')
        assert not (tmp_path/f'{k}.jsonl').exists()
        assert len(lines(dlgs2jsonl([plain_dlg(), d], tmp_path/f'{k}.jsonl', shape='openai_ft', drop='has_image'))) == 1
        assert len(lines(dlgs2jsonl([d], tmp_path/f'{k}c.jsonl'))) == 1  # a request takes it ('chat' checks a request's own limits)
    webp = b'RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f' + bytes(13)
    ok_ = _pic('ok', *[(tiny_png, 'image/png')]*8, (b'\xff\xd8\xff\xe0' + bytes(20), 'image/jpeg'), (webp, 'image/webp'))
    for l in lines(dlgs2jsonl([ok_], tmp_path/'ok.jsonl', shape='openai_ft')): openai_ft_rules(l)
    src = tmp_path/'src'
    plain_dlg().save(src/'a.ipynb'); bad['gif'][0].save(src/'b.ipynb')
    with pytest.warns(UserWarning, match="b.ipynb"): paths2jsonl(src, tmp_path/'p.jsonl', shape='openai_ft', on_error='skip', workers=0)
    ls = lines(tmp_path/'p.jsonl')
    assert len(ls) == 1
    for l in ls: openai_ft_rules(l)
    l = lines(tmp_path/'ok.jsonl')[0]
    l['messages'][0]['content'][1]['image_url']['url'] = 'data:image/png;base64,' + base64.b64encode(GIF).decode()
    with pytest.raises(AssertionError, match='JPEG, PNG or WEBP only'): openai_ft_rules(l)  # the checker refuses what the writer refuses

def test_openai_ft_checks_the_images_dlg2chat_sent(tmp_path, monkeypatch):
    "`openai_ft` checks the images its line holds as `dlg2chat` built them for it: a dialog's send units are built once a line, not again for the check"
    import dialog.chat as c
    built, units = [], c._units
    monkeypatch.setattr(c, '_units', lambda *a, **k: (built.append(1), units(*a, **k))[1])
    d = _pic('pic', (tiny_png, 'image/png'), (GIF, 'image/gif'))
    with pytest.raises(ValueError, match="message 'p1' sends an image/gif image"): dlgs2jsonl([d], tmp_path/'g.jsonl', shape='openai_ft')
    assert len(built) == 1
    built.clear()
    l = lines(dlgs2jsonl([_pic('ok', (tiny_png, 'image/png'))], tmp_path/'o.jsonl', shape='openai_ft'))[0]
    assert len(built) == 1 and l['messages'][0]['content'][1]['image_url']['url'].startswith('data:image/png;base64,')

def _png(ct, depth=8):
    "A 1x1 PNG of colour type `ct` (0 grayscale, 2 RGB, 3 palette, 4 grayscale and alpha, 6 RGBA)"
    import struct, zlib
    chunk = lambda t, b: struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b))
    n = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
    plte = chunk(b'PLTE', bytes(3)) if ct == 3 else b''
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, depth, ct, 0, 0, 0)) + plte + chunk(b'IDAT', zlib.compress(bytes(1 + n*depth//8))) + chunk(b'IEND', b'')

def _jpeg(ncomp):
    "The header of a JPEG of `ncomp` components (1 grayscale, 3 colour, 4 CMYK), after an APP0 segment: its mode is all it tells"
    return b'\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00' + b'\xff\xc0' + (8 + 3*ncomp).to_bytes(2, 'big') + b'\x08\x00\x01\x00\x01' + bytes([ncomp]) + b''.join(bytes([i+1, 0x11, 0]) for i in range(ncomp)) + b'\xff\xd9'

def test_openai_ft_takes_rgb_or_rgba_images_only(tmp_path):
    "OpenAI's vision fine-tuning takes images in RGB or RGBA mode: a grayscale or palette PNG, a grayscale or CMYK JPEG is a bad dialog, its error naming the message, the mode and the rule; the mode comes from the header, as Pillow opens it; drop='has_image' leaves such a dialog out"
    bad = dict(gray=(_png(0), 'L (grayscale)'), gray16=(_png(0, 16), 'I;16 (16-bit grayscale)'), bilevel=(_png(0, 1), '1 (bilevel)'), graya=(_png(4), 'LA (grayscale with alpha)'),
               palette=(_png(3), 'P (palette)'), jgray=(_jpeg(1), 'L (grayscale)'), cmyk=(_jpeg(4), 'CMYK (CMYK)'))
    for k, (raw, mode) in bad.items():
        kind = 'image/png' if raw[:4] == b'\x89PNG' else 'image/jpeg'
        err = f"dialog 1: dialog {k!r}: message 'p1' sends an {kind} image in mode {mode}, and OpenAI's fine-tuning takes RGB or RGBA images only: leave such dialogs out with drop='has_image'"
        with pytest.raises(ValueError, match=re.escape(err)): dlgs2jsonl([plain_dlg(), _pic(k, (raw, kind))], tmp_path/f'{k}.jsonl', shape='openai_ft')
        assert len(lines(dlgs2jsonl([plain_dlg(), _pic(k, (raw, kind))], tmp_path/f'{k}.jsonl', shape='openai_ft', drop='has_image'))) == 1
    webp = b'RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f' + bytes(13)
    ok_ = _pic('ok', (_png(2), 'image/png'), (_png(6), 'image/png'), (_png(2, 16), 'image/png'), (_png(4, 16), 'image/png'), (_png(6, 16), 'image/png'), (_jpeg(3), 'image/jpeg'), (webp, 'image/webp'), (tiny_png, 'image/png'))
    for l in lines(dlgs2jsonl([ok_], tmp_path/'ok.jsonl', shape='openai_ft')): openai_ft_rules(l)

def test_img_mode_is_the_mode_pillow_opens():
    "The mode `openai_ft` reads from an image's header is the one Pillow opens it in (RGB or RGBA, or not), for every mode each format saves, with and without EXIF, ICC profiles, progressive JPEG, lossless WEBP"
    Image = pytest.importorskip('PIL.Image')
    import io
    from dialog.chat import _img_mode
    saves = dict(PNG=['1', 'L', 'LA', 'P', 'RGB', 'RGBA', 'I;16'], JPEG=['L', 'RGB', 'CMYK'], WEBP=['L', 'LA', 'P', 'RGB', 'RGBA'])
    for fmt, modes in saves.items():
        for m in modes:
            for kw in ({}, {'progressive': True, 'icc_profile': bytes(2000), 'exif': b'Exif\x00\x00' + bytes(40)}, {'lossless': True}):
                b = io.BytesIO(); Image.new(m, (5, 3)).save(b, fmt, **kw); raw = b.getvalue()
                got = Image.open(io.BytesIO(raw)).mode
                assert (_img_mode(raw) in ('RGB', 'RGBA')) == (got in ('RGB', 'RGBA')) and _img_mode(raw) is not None, (fmt, m, kw, got, _img_mode(raw))

def test_png_mode_is_pillows_for_every_bit_depth_and_colour_type():
    "A PNG's mode is the one Pillow opens it in for every (bit depth, colour type) pair, the bit depth counted: a 16-bit grayscale-with-alpha PNG opens as RGBA, a 16-bit grayscale one as I;16, a 1-bit one as 1"
    Image = pytest.importorskip('PIL.Image')
    import io
    from dialog.chat import _img_mode
    for ct in (0, 2, 3, 4, 6):
        for depth in (1, 2, 4, 8, 16):
            raw = _png(ct, depth)
            try: got = Image.open(io.BytesIO(raw)).mode
            except Exception: got = None  # a pair PNG doesn't allow: Pillow refuses it, and so no mode is read
            assert _img_mode(raw) == got, (ct, depth, got, _img_mode(raw))

def test_jpeg_mode_skips_stray_bytes_between_segments_as_pillow_does():
    "A JPEG with stray bytes (not 0xFF) or an escaped 0xFF between its segments: its mode is read past them, as Pillow opens it, so a grayscale or CMYK one is refused as the same JPEG without them is"
    Image = pytest.importorskip('PIL.Image')
    import io
    from dialog.chat import _img_mode
    for m in ('L', 'RGB', 'CMYK'):
        b = io.BytesIO(); Image.new(m, (8, 8)).save(b, 'JPEG'); raw = b.getvalue()
        n = 4 + int.from_bytes(raw[4:6], 'big')  # the end of APP0
        for junk in (b'\x00', b'\x12\x34\x56', b'\xff\x00'):
            j = raw[:n] + junk + raw[n:]
            im = Image.open(io.BytesIO(j)); im.load()
            assert _img_mode(j) == im.mode == m, (m, junk, im.mode, _img_mode(j))

def test_openai_ft_file_holds_so_many_examples_with_images(tmp_path, monkeypatch):
    "OpenAI's fine-tuning takes so many examples with images in one training file (50,000): the line after them is an error naming its dialog and its line; text-only lines don't count, an image by URL does, and drop='has_image' leaves them all out"
    import dialog.chat as c
    assert ft_img_limits['examples'] == 50_000
    monkeypatch.setitem(c.ft_img_limits, 'examples', 2)
    url = chat2dlg([{'role': 'user', 'content': [{'type': 'image_url', 'image_url': {'url': 'https://example.com/a.png'}}]}, {'role': 'assistant', 'content': 'A.'}], name='url')
    dl = [plain_dlg(), _pic('p1', (tiny_png, 'image/png')), plain_dlg(), url, _pic('p3', (tiny_png, 'image/png'))]
    err = "dialog 4: dialog 'p3': line 5 holds images, and the lines before it hold 2 examples with images, the most OpenAI's fine-tuning takes in one training file: write the dialogs to several files"
    with pytest.raises(ValueError, match=re.escape(err)): dlgs2jsonl(dl, tmp_path/'f.jsonl', shape='openai_ft')
    assert not (tmp_path/'f.jsonl').exists()
    assert len(lines(dlgs2jsonl(dl[:4] + [plain_dlg()], tmp_path/'f.jsonl', shape='openai_ft'))) == 5
    assert len(lines(dlgs2jsonl(dl, tmp_path/'f.jsonl', shape='openai_ft', drop='has_image'))) == 2
    assert len(lines(dlgs2jsonl(dl, tmp_path/'c.jsonl'))) == 5  # a 'chat' line is a request: no training file's limit

def test_paths2jsonl_holds_the_examples_limit_across_chunks(tmp_path, monkeypatch):
    "`paths2jsonl` converts a chunk at a time, and OpenAI's examples-with-images limit is the whole file's: the line over it is refused with `dlgs2jsonl`'s error (its dialog, its line in the file), naming its file, and no file is written; at the limit, every line is"
    import dialog.chat as c
    monkeypatch.setitem(c.ft_img_limits, 'examples', 2)
    dl = [plain_dlg(), _pic('p1', (tiny_png, 'image/png')), plain_dlg(), _pic('p3', (tiny_png, 'image/png')), _pic('p4', (tiny_png, 'image/png'))]
    src = tmp_path/'src'
    for i, d in enumerate(dl): d.save(src/f'a{i}.ipynb')
    from dialog.dataset import read_dialogs
    with pytest.raises(ValueError) as want: dlgs2jsonl(list(read_dialogs(src)), tmp_path/'d.jsonl', shape='openai_ft')
    rule = str(want.value).split('dialog 4: ', 1)[1]
    assert rule.startswith("dialog 'a4': line 5 holds images")
    f = tmp_path/'o.jsonl'
    with pytest.raises(ValueError) as e: paths2jsonl(src, f, shape='openai_ft', workers=0)
    assert str(e.value) == f"{f}: {src/'a4.ipynb'}: {rule}"
    assert not f.exists() and not list(tmp_path.glob('.o.jsonl*'))
    (src/'a4.ipynb').unlink()
    assert sum('image_url' in json.dumps(l) for l in lines(paths2jsonl(src, f, shape='openai_ft', workers=0))) == 2

def test_a_chat_line_over_the_request_limit_gets_the_writers_advice(tmp_path, monkeypatch):
    "A 'chat' line over the request limit by its text: the error gives the JSON Lines writer's advice (leave the dialog out, or write a training shape) where `dlg2chat` gives a sender's; the error is built with it, so a dialog whose name spells the sender's advice keeps its name"
    import dialog.chat as c
    monkeypatch.setitem(c.req_limits, 'openai', dict(bytes=2000, images=500))
    f = tmp_path/'l.jsonl'
    for name in ('long', c._fewer):
        d = _dlg(name, ('x'*3000, sprompt, 'ok'))
        with pytest.raises(ValueError) as e: dlgs2jsonl([d], f)
        head, _, tail = str(e.value).partition(' bytes, over ')
        assert head.startswith(f"{f}: dialog 0: dialog {name!r}: the request is ") and tail == f"openai's limit of 2000 bytes, and not by its images: {c._jsonl_fewer}"
        assert "leave the dialog out (reading files: on_error='skip'; on the command line: --skip-bad), or write a training shape" in tail
        with pytest.raises(ValueError) as e: dlg2chat(d)
        assert str(e.value).startswith(f"dialog {name!r}: the request is ") and str(e.value).endswith(f"not by its images: {c._fewer}")
        assert len(lines(dlgs2jsonl([d], f, shape='openai_ft'))) == 1  # a training line is no request

def test_a_shape_refusal_names_the_options_of_both_surfaces(tmp_path):
    "A dialog a shape refuses (a GIF for openai_ft, an image for a text-only shape): the advice names what each caller passes, `drop='has_image'` and `on_error='skip'` in Python, `--drop has_image` and `--skip-bad` on the command line, in one text (the error may come from a process reading files); fmt with a training shape names the values both pass"
    src = tmp_path/'talks'; _pic('gif', (GIF, 'image/gif')).save(src/'gif.ipynb'); plain_dlg().save(src/'a.ipynb')
    how = "leave such dialogs out with drop='has_image' (reading files: on_error='skip'; on the command line: --drop has_image or --skip-bad)"
    for shape in ('openai_ft', 'hf'):
        with pytest.raises(ValueError, match=re.escape(how)): dlgs2jsonl([_pic('gif', (GIF, 'image/gif'))], tmp_path/f'{shape}.jsonl', shape=shape)
        r = nbd('export', src, '-o', tmp_path/f'{shape}.jsonl', '--shape', shape)
        assert r.returncode==2 and how in r.stderr and 'gif.ipynb' in r.stderr, r.stderr
        assert 'wrote' in ok('export', src, '-o', tmp_path/f'{shape}.jsonl', '--shape', shape, '--drop', 'has_image')
        assert 'gif.ipynb' in ok('export', src, '-o', tmp_path/f'{shape}2.jsonl', '--shape', shape, '--skip-bad')  # the skipped file listed
    r = nbd('export', src, '-o', tmp_path/'f.jsonl', '--fmt', 'anthropic', '--shape', 'hf')
    assert r.returncode==2 and "a history in format 'anthropic' goes with shape 'chat' only" in r.stderr and 'fmt=' not in r.stderr, r.stderr

def test_thinking_on_the_message_of_its_round_when_a_provider_sent_more_messages_than_rounds(tmp_path):
    "r22f item 1: an OpenAI history holding a blank assistant message between rounds is put back record by record (4 assistant messages for 3 rounds): `hf` and `trl` put the thinking on the message of the round that wrote it, by the render's own count, rather than index a per-round list by messages sent (an IndexError)"
    def tc(i): return {'id': i, 'type': 'function', 'function': {'name': 'lookup', 'arguments': '{"q": "x"}'}}
    h = [{'role': 'user', 'content': 'What is x?'}, {'role': 'assistant', 'content': 'Let me check.'},
         {'role': 'assistant', 'content': None, 'tool_calls': [tc('call_1')]}, {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'x is 4'},
         {'role': 'assistant', 'content': '\n\n'}, {'role': 'assistant', 'content': 'x is 4.', 'reasoning_content': 'The tool said 4.'}]
    d = chat2dlg(h, 'openai', name='talk')
    assert sum(m['role'] == 'assistant' for m in dlg2chat(d)) == 4  # the records put back, one message each
    hf = lines(dlgs2jsonl([d], tmp_path/'h.jsonl', shape='hf'))[0]['messages']
    assert [(m['content'].strip(), m.get('reasoning_content')) for m in hf if m['role'] == 'assistant'] == [('Let me check.', None), ('x is 4.', 'The tool said 4.')]
    row = lines(dlgs2jsonl([d], tmp_path/'t.jsonl', shape='trl'))[0]
    assert [m.get('reasoning_content') for m in row['completion'] if m['role'] == 'assistant'] == [None, 'The tool said 4.']

def test_a_run_of_user_messages_merges_in_linear_time():
    "r22f item 6: a run of n user messages is merged by joining its texts once, not by copying the growing text at each one (quadratic: 5,000 prompts of 4 KB copied ~50 GB, seconds; joined once, milliseconds)"
    import time
    from dialog.chat import _alternating
    ms = [{'role': 'user', 'content': f'{i}:' + 'x'*4000} for i in range(5000)] + [{'role': 'assistant', 'content': 'A.', 'weight': 0}]
    t = time.perf_counter(); res = _alternating(ms); took = time.perf_counter() - t
    assert res == [{'role': 'user', 'content': '\n\n'.join(m['content'] for m in ms[:-1])}, {'role': 'assistant', 'content': 'A.', 'weight': 0}]
    assert took < 1, took

def test_a_nan_or_infinity_is_refused_not_written_as_a_bare_token(tmp_path):
    "r22f item 4: a call whose arguments hold NaN or Infinity (Python's `json` reads them) would be written as bare `NaN` in a line that gives arguments as a dict: no line is JSON with it (RFC 8259), so the writer refuses the dialog, naming it and its message, and `on_error='skip'` leaves it out"
    def strict(s): return json.loads(s, parse_constant=lambda c: pytest.fail(f'{c} in a line'))
    h = [{'role': 'user', 'content': 'Flag outliers.'},
         {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'flag', 'arguments': '{"threshold": NaN, "max": Infinity}'}}]},
         {'role': 'tool', 'tool_call_id': 'call_1', 'content': '3 rows'}, {'role': 'assistant', 'content': 'Three rows.'}]
    d = chat2dlg(h, 'openai', name='outliers')
    for shape, fmt in (('hf', 'openai'), ('trl', 'openai'), ('chat', 'anthropic')):
        with pytest.raises(ValueError, match=rf"dialog 0: dialog 'outliers': message '{d.messages[0].id}': its line would hold a NaN or an infinity at \S+\['threshold'\]"):
            dlgs2jsonl([d], tmp_path/f'{shape}.jsonl', fmt, shape=shape)
    for shape in ('chat', 'openai_ft', 'sharegpt'):  # arguments as JSON text: a string, which a line holds
        for l in (tmp_path/'ok.jsonl').write_text('') or dlgs2jsonl([d], tmp_path/'ok.jsonl', shape=shape).read_text().splitlines(): strict(l)
    src = tmp_path/'src'
    plain_dlg().save(src/'a.ipynb'); d.save(src/'b.ipynb')
    with pytest.warns(UserWarning, match='b.ipynb'): paths2jsonl(src, tmp_path/'p.jsonl', shape='hf', on_error='skip', workers=0)
    assert [strict(l) for l in (tmp_path/'p.jsonl').read_text().splitlines()] == lines(dlgs2jsonl([plain_dlg()], tmp_path/'a.jsonl', shape='hf'))

def test_tool_definitions_carry_a_description_for_templates_that_render_it(tmp_path):
    "r22f item 5: gpt-oss's chat template (as trl ships it) writes each tool's `description` unconditionally, and refused every line with a call: every shape's `tools` define each function with a description, empty since a dialog doesn't know what a function is for"
    import os, trl
    from transformers import PreTrainedTokenizerFast
    tk = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(WordLevel({'[UNK]': 0}, unk_token='[UNK]')), eos_token='<|return|>')
    tk.chat_template = Path(os.path.dirname(trl.__file__), 'chat_templates', 'gptoss.jinja').read_text()
    d = Dialog('weather')
    d.mk_message('Weather in Rome?', msg_type=sprompt, output=tool_block('call_1', 'get_weather', {'city': 'Rome'}, '21 C, sunny') + '\n\nIt is 21 C and sunny.')
    line = lines(dlgs2jsonl([d], tmp_path/'h.jsonl', shape='hf'))[0]
    assert line['tools'] == [{'type': 'function', 'function': {'name': 'get_weather', 'description': '', 'parameters': {'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']}}}]
    text = tk.apply_chat_template(line['messages'], tools=line['tools'], tokenize=False)
    assert 'get_weather' in text and 'It is 21 C and sunny.' in text
    assert lines(dlgs2jsonl([d], tmp_path/'o.jsonl', shape='openai_ft'))[0]['tools'] == line['tools']
    assert json.loads(lines(dlgs2jsonl([d], tmp_path/'s.jsonl', shape='sharegpt'))[0]['tools']) == [line['tools'][0]['function']]

def test_an_image_a_tool_returned_is_refused_by_text_only_shapes_and_dropped_by_has_image(tmp_path):
    "r22f item 2: a screenshot a tool returned became the note '(image/png image, 68 bytes)' in every training shape, and drop='has_image' kept the dialog: the text-only shapes (and openai_ft, whose tool messages are text) refuse it naming the dialog and message, and has_image leaves it out in every shape, by one rule"
    png = base64.b64encode(tiny_png).decode()
    h = [{'role': 'user', 'content': 'Take a screenshot.'},
         {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'screenshot', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png}}]}]},
         {'role': 'assistant', 'content': 'The screen is blank.'}]
    d = chat2dlg(h, 'anthropic', name='computer-use')
    d2 = plain_dlg(); d2.mk_message('Shot?', msg_type=sprompt, output=tool_block('k', 'shot', {}, result_image('image/png', png)) + '\n\nBlank.')
    for shape in ('hf', 'trl', 'sharegpt', 'openai_ft'):
        for x in (d, d2):
            with pytest.raises(ValueError, match=rf"dialog '{x.name}': message '{x.messages[-1].id if x is d2 else x.messages[0].id}' sends an image in a tool result"):
                dlgs2jsonl([x], tmp_path/f'{shape}.jsonl', shape=shape)
    for shape, fmt in (('hf', 'openai'), ('trl', 'openai'), ('sharegpt', 'openai'), ('openai_ft', 'openai'), ('chat', 'openai'), ('chat', 'anthropic')):
        assert lines(dlgs2jsonl([d, plain_dlg(), d2], tmp_path/'k.jsonl', fmt, shape=shape, drop='has_image')) == lines(dlgs2jsonl([plain_dlg()], tmp_path/'p.jsonl', fmt, shape=shape))
    assert len(lines(dlgs2jsonl([d], tmp_path/'c.jsonl'))) == 1  # a request as sent: OpenAI's tool message gets its note, as `dlg2chat` sends it

def test_the_docs_send_trl_users_to_hf_not_sharegpt(tmp_path):
    "r22f item 3: the shapes table offered `sharegpt` to TRL's `maybe_convert_to_chatml`, which keeps ShareGPT's roles (human, gpt) that chat templates don't render: TRL trained on the system prompt alone. The table no longer does, and what the docs say instead holds, by TRL's own functions"
    nb = json.loads((Path(__file__).resolve().parent.parent/'nbs'/'05_chat.ipynb').read_text())
    doc = next(''.join(c['source']) for c in nb['cells'] if ''.join(c['source']).startswith('### Training shapes'))
    row = next(l for l in doc.splitlines() if l.startswith('| `sharegpt`'))
    assert 'maybe_convert_to_chatml' not in row.split(' | ')[-1]  # its "for" column
    assert "**TRL and ShareGPT.** TRL reads `hf`" in doc
    d = Dialog('rows'); d.system = 'Be brief.'
    d.mk_message('How many rows?', msg_type=sprompt, output='There are 1,200 rows.')
    ex = lines(dlgs2jsonl([d], tmp_path/'s.jsonl', shape='sharegpt'))[0]
    assert trl_data.is_conversational_from_value(ex)  # SFTTrainer's from/value branch
    assert [m['role'] for m in trl_data.maybe_convert_to_chatml(ex)['messages']] == ['system', 'human', 'gpt']  # roles kept, as the docs say
    text = rendered(lines(dlgs2jsonl([d], tmp_path/'h.jsonl', shape='hf'))[0]['messages'], None)
    assert 'How many rows?' in text and 'There are 1,200 rows.' in text  # `hf`: the conversation TRL renders

@st.composite
def thinking_tool_histories(draw):
    "OpenAI histories whose assistant turns call tools, each with or without thinking (`reasoning_content`, `reasoning`) and text ('', None or some)"
    hist, k = [{'role': 'user', 'content': 'Compute 6*7.'}], 0
    for _ in range(draw(st.integers(1, 3))):
        calls = [{'id': f'c{(k := k+1)}', 'type': 'function', 'function': {'name': 'calc', 'arguments': json.dumps({'expr': draw(st.sampled_from(['6*7', '1+1']))})}}
                 for _ in range(draw(st.integers(1, 2)))]
        m = {'role': 'assistant', 'content': draw(st.sampled_from(['', None, 'Let me compute.'])), 'tool_calls': calls}
        if key := draw(st.sampled_from([None, 'reasoning_content', 'reasoning'])): m[key] = draw(st.text('ab ', min_size=1, max_size=8))
        hist += [m] + [{'role': 'tool', 'tool_call_id': c['id'], 'content': '42'} for c in calls]
    return hist + [{'role': 'assistant', 'content': 'It is 42.'}]

@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hist=thinking_tool_histories())
def test_openai_ft_turn_that_thought_then_called_reads_back_to_the_same_line(hist, tmp_path_factory):
    "A tool-call turn without text is written `null` by `openai_ft` whether it thought or not (it was `\"\"` after thinking, `null` once read back and written again): the line survives `jsonl2dlgs` -> `dlgs2jsonl`"
    tmp = tmp_path_factory.mktemp('ft')
    a = dlgs2jsonl([chat2dlg(hist, 'openai', name='r')], tmp/'a.jsonl', shape='openai_ft').read_text()
    assert dlgs2jsonl(jsonl2dlgs(tmp/'a.jsonl'), tmp/'b.jsonl', shape='openai_ft').read_text() == a
    for m in json.loads(a)['messages']:
        if m.get('tool_calls'): assert m['content'] is None or m['content'].strip(), m  # one spelling of no text
    openai_ft_rules(json.loads(a))

@pytest.mark.parametrize('shape', ['hf', 'trl'])
def test_a_merged_reply_reads_back_to_the_same_line(tmp_path, shape):
    "Two replies in a row (a thinking-only one, then a call), merged into one assistant message, keep one message's key order: the line read back and written again is the same (hypothesis found them written content, reasoning_content, tool_calls, then content, tool_calls, reasoning_content)"
    call = ('<details class=\'tool-usage-details\' markdown=\'1\'>\n<summary><code>f()</code></summary>\n\n```json\n'
            '{\n  "id": "id00",\n  "call": {\n    "function": "f",\n    "arguments": {}\n  },\n  "result": ""\n}\n```\n\n</details>')
    d = Dialog('gen', [Message('', msg_type='note'), Message('', msg_type='prompt', output='<!--think_start-->\n::: details\n\n## Thinking\n\n:\n\n:::\n<!--think_end-->\n\n:'), Message('', msg_type='prompt', output=call)])
    a = dlgs2jsonl([d], tmp_path/'a.jsonl', shape=shape).read_text()
    b = dlgs2jsonl(jsonl2dlgs(tmp_path/'a.jsonl'), tmp_path/'b.jsonl', shape=shape).read_text()
    assert '"reasoning_content"' in a and a == b
