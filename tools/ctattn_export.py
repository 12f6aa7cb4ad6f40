#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""ctattn-export: a PyTorch module to a ctattn model, its weights, a golden test and, on request, its int8 ranges.

    ctattn-export MODULE --name NAME --out DIR [--weights FILE] [--input SHAPE] [--memory SHAPE]
                  [--namespace NS] [--golden N] [--int8 [--samples N] [--weight-format int8|int4] [--per-tensor]
                  [--activations int8|int16] [--layer-weights PATH=FORMAT[:GRANULARITY][:ACTIVATIONS]]...
                  [--softmax rounded|tflite]] [--no-check]

MODULE is `file.py:Factory` (a class or function called with no arguments), or `package.module:Factory`;
--weights loads a state_dict into it (.safetensors or a torch.save file). The module must be built from the torch
layers ctattn has (see SUPPORTED); its forward must run its children in the order it declares them (the way a
`ctattn::model` runs its members); the golden test is what proves it.

Written to DIR (every file says it is generated, and by what):

| file                     | what                                                                              |
|--------------------------|-----------------------------------------------------------------------------------|
| NAME.hpp                 | the C++ model: `struct NAME : ctattn::model<NAME>` with the module's attribute names |
| NAME.safetensors         | the weights under their state_dict names, with the configuration in `__metadata__` |
| NAME_weights.hpp         | `inline constexpr NAME NAME_weights`: the weights as exact literals               |
| NAME_golden.hpp          | N inputs and PyTorch's float32 outputs for them                                   |
| NAME_test.cpp            | the golden test: static_assert at compile time, the same at run time, the .safetensors loaded at run time |
| NAME_samples.hpp, NAME_record_ranges.cpp, NAME_ranges.hpp, NAME_int8.hpp | with --int8: the calibration inputs, the recorder (ctattn::record_ranges), the ranges it wrote, the int8 model |
| CMakeLists.txt           | the test (and recorder) for a project that has ctattn (find_package)              |

Unless --no-check, the tool then compiles the recorder and the test with the C++ compiler ($CXX, or c++) and runs
them: one command ends with the model verified, or with the reason it is not.

Also usable from Python: `export(module, out_dir, name, input_shape, ...)`.
"""

import argparse
import importlib
import importlib.util
import json
import math
import os
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path

SUPPORTED = ("nn.Linear, nn.Conv1d and nn.Conv2d (stride = kernel, no padding: a patch embedding, the model's first "
             "layer), nn.Embedding (tokens, and learned positions right after them), nn.LayerNorm, nn.ReLU, "
             "nn.GELU, nn.SiLU, nn.MultiheadAttention (as self-attention), nn.TransformerEncoderLayer, "
             "nn.TransformerEncoder, nn.TransformerDecoderLayer and nn.TransformerDecoder (as the whole model), "
             "nn.Sequential, nn.ModuleList, nn.Dropout and nn.Identity (skipped), and modules of these whose "
             "forward runs their children in order (a class token [1, 1, d] and learned positions [1, n, d] of their "
             "own after the first, x[:, 0] or x.mean(dim=1) before a child), blocks written as timm writes them "
             "(norm1, attn.qkv, attn.proj, norm2, mlp.fc1, mlp.fc2; pre- or post-norm), and layers written as "
             "Torch-KWT writes them (a ModuleList pair of wrappers with `norm` and `fn`: attention with to_qkv, "
             "heads, to_out; feed-forward Linear, activation, Linear; x + fn(norm(x))), and llama-style language "
             "models laid out as llama2.c's Transformer (tok_embeddings, layers of attention.wq/wk/wv/wo, "
             "feed_forward.w1/w2/w3, attention_norm and ffn_norm, norm, output) or as transformers' "
             "LlamaForCausalLM (model.embed_tokens, model.layers of self_attn.q_proj/k_proj/v_proj/o_proj, "
             "mlp.gate_proj/up_proj/down_proj, input_layernorm and post_attention_layernorm, model.norm, lm_head)")

# The names of the two llama-style layouts Declarations.llama() reads: llama2.c's Transformer (model.py; Meta's
# reference names) and transformers' LlamaForCausalLM. The tensors are written under llama2.c's names either way.
LLAMA_LAYOUTS = {
    "llama2.c": {"title": "llama2.c's Transformer", "config": False,
                 "embed": "tok_embeddings", "layers": "layers", "norm": "norm", "output": "output",
                 "attention": "attention", "feed_forward": "feed_forward", "q": "wq", "k": "wk", "v": "wv", "o": "wo",
                 "w1": "w1", "w2": "w2", "w3": "w3", "attention_norm": "attention_norm", "ffn_norm": "ffn_norm",
                 "eps": "eps", "eps_default": "llama2.c's norm_eps, 1e-5",
                 "heads": ("n_local_heads", "n_heads"), "kv_heads": ("n_local_kv_heads", "n_kv_heads"),
                 "heads_said": "n_local_heads (or n_heads on the block)",
                 "kv_heads_said": "n_local_kv_heads (or n_kv_heads on the block)",
                 "heads_hint": "llama2.c's Attention has n_local_heads, n_local_kv_heads and head_dim",
                 "heads_give": "attention those attributes",
                 "holds": "tok_embeddings, the blocks' wq, wk, wv, wo, w1, w2, w3 and norms, norm and output"},
    "transformers": {"title": "Hugging Face's LlamaForCausalLM", "config": True,
                     "embed": "model.embed_tokens", "layers": "model.layers", "norm": "model.norm",
                     "output": "lm_head", "attention": "self_attn", "feed_forward": "mlp",
                     "q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj",
                     "w1": "gate_proj", "w2": "down_proj", "w3": "up_proj",
                     "attention_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm",
                     "eps": "variance_epsilon", "eps_default": "config.rms_norm_eps",
                     "heads": ("num_heads",), "kv_heads": ("num_key_value_heads",),
                     "heads_said": "num_heads (or config.num_attention_heads)",
                     "kv_heads_said": "num_key_value_heads (or config.num_key_value_heads)",
                     "heads_hint": "transformers' LlamaAttention reads them from its config",
                     "heads_give": "model a `config` with num_attention_heads and num_key_value_heads",
                     "holds": "model.embed_tokens, the blocks' q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, "
                              "down_proj and norms, model.norm and lm_head"},
}

CPP_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq""".split())

HERE = Path(__file__).resolve().parent

# Above this many multiply-adds per forward, --proof auto proves the model as a chain of links: one constant
# evaluation of the whole forward took 26 s and 1.4 GB with GCC at 7 M (docs/compile_time.md).
CHAIN_ABOVE = 3_000_000


class ExportError(Exception):
    """A module, an option or an input the export cannot take: the message names it and says what to do."""


def torch_modules() -> tuple:
    try:
        import torch
        from torch import nn
    except ImportError as e:
        raise ExportError(f"this Python ({sys.executable}) cannot import torch ({e}); install PyTorch for it (Debian: "
                          f"apt-get install python3-torch, for /usr/bin/python3), or run the tool with a Python that "
                          f"has it: /usr/bin/python3 {sys.argv[0] if sys.argv and sys.argv[0] else 'ctattn-export'}")
    return torch, nn


# ---------------------------------------------------------------------------------------------------------------
# The module tree to C++ types.

def activation_name(path: str, activation) -> str:
    """ctattn's name of an activation given as a module or as a function (a TransformerEncoderLayer's)."""
    torch, nn = torch_modules()
    F = torch.nn.functional
    if activation is F.relu or isinstance(activation, nn.ReLU):
        return "relu"
    if activation is F.gelu:
        return "gelu"
    if isinstance(activation, nn.GELU):
        return "gelu_tanh" if activation.approximate == "tanh" else "gelu"
    if activation is F.silu or isinstance(activation, nn.SiLU):
        return "silu"
    raise ExportError(f"{path}: the activation {activation!r} is not one ctattn has; use relu, gelu (exact or "
                      f"approximate='tanh') or silu")


def skipped(module) -> bool:
    _, nn = torch_modules()
    return isinstance(module, (nn.Dropout, nn.Identity))


class Declarations:
    """The C++ declarations of a module tree: nested model structs first, the top one last."""

    def __init__(self, name: str, causal=frozenset(), pools: dict | None = None, input_shape: tuple = (),
                 norm_first: dict | None = None, tgt_mask: str = "causal"):
        self.name = name
        self.tgt_mask = tgt_mask  # a decoder's self-attention mask: "causal" (ctattn's default) or "none"
        self.input_shape = tuple(input_shape)  # PyTorch's, batch first: a patch embedding's image or sequence
        self.patches = None      # "1d" or "2d" when the model's first layer cuts its input into patches
        self.causal = causal     # paths of the layers whose forward gets a causal mask (find_causal)
        self.pools = pools or {}  # member path -> "token" or "mean": the rows pooled before it (check_chains)
        self.pooled = bool(self.pools)
        self.structs = []        # C++ text of each generated struct, in dependency order
        self.settings = {}       # safetensors __metadata__: "<path>.<option>" -> value
        self.eps = {}            # "<path>.eps" -> each LayerNorm's eps, set on the weights by ctattn::set_setting
        self.decoder = False     # the model takes the encoder's memory (ctattn::with_memory)
        self.first = None        # the first layer that computes: "ids" (an embedding) or the input width
        self.quantizable = []    # reasons the int8 form cannot be made, by path
        self.chains = []         # (path, [(member path, role)]): what must run as a chain (check_chains)
        self.norm_first = norm_first or {}  # block path -> True (pre-norm) or False (post-norm): check_blocks
        self.blocks = {}         # block path -> [(ctattn's tensor name, tensor)]: the weights it writes (block())
        self.block_parts = {}    # block path -> {"eps": (norm1's, norm2's), "act": the activation module}
        self.pairs = {}          # a wrapped pair's path -> (its attention wrapper's path, its feed-forward's): pair()
        self.own_order = []      # (class token, positions) of a module holding both: written in that order
        self.link_counts = {}    # C++ type of a chain (a model struct, a sequential) -> its ctattn::link_count
        self.attention_widths = []  # d_model of every attention, for the multiply-add estimate
        self.patch_area = 1      # input rows per token: a patch embedding's kernel (height x width, or length)
        self.class_tokens = 0    # rows the model prepends (class tokens)
        self.llama_model = None  # a llama2.c-style Transformer (llama()): {"positions", "tied", "state", ...}
        self.names = {f"{name}_{suffix}": "the export's own" for suffix in ("input", "footprint", "weights", "names",
                                                                          "parameters", "golden", "samples", "int8",
                                                                          "ranges", "layer", "inputs", "chain",
                                                                          "proof")}

    @staticmethod
    def key(path: str, option: str) -> str:
        """The __metadata__ key of a setting: `<path>.<option>`, or the option alone at the top."""
        return f"{path}.{option}" if path else option

    def struct(self, struct_name: str, path: str) -> str:
        """A generated C++ name, refused when another generated name is already the same."""
        if struct_name in self.names:
            raise ExportError(f"{path or 'the model'}: the generated name {struct_name} is taken (by {self.names[struct_name]}); "
                              f"rename the attribute or --name")
        self.names[struct_name] = path or "the model"
        return struct_name

    def identifier(self, path: str, name: str) -> str:
        if not name.isidentifier() or name in CPP_KEYWORDS or name.startswith("_"):
            raise ExportError(f"{path}: the attribute name '{name}' is not a C++ member name (a keyword, or it "
                              f"starts with '_'); rename the attribute in the module")
        return name

    def check_norm(self, path: str, norm) -> None:
        _, nn = torch_modules()
        if not isinstance(norm, nn.LayerNorm):
            raise ExportError(f"{path}: {type(norm).__name__} is not a LayerNorm; ctattn's layers take nn.LayerNorm")
        if len(norm.normalized_shape) != 1:
            raise ExportError(f"{path}: LayerNorm over {tuple(norm.normalized_shape)}: ctattn normalizes rows, "
                              f"over one dimension; give normalized_shape as the width")
        if not norm.eps > 0:
            raise ExportError(f"{path or 'the model'}: LayerNorm eps={norm.eps}: ctattn's norms take a positive eps; "
                              f"train the module with one")
        self.settings[self.key(path, "eps")] = repr(float(norm.eps))
        self.eps[self.key(path, "eps")] = float(norm.eps)

    def check_attention(self, path: str, attn, self_attention: bool = True) -> None:
        if not attn.batch_first:
            raise ExportError(f"{path or 'the model'}: batch_first=False: ctattn's layers take one sequence as rows "
                              f"(sequence x features); build the module with batch_first=True (the weights are the "
                              f"same) and give --input as 1 x sequence x features")
        if attn.in_proj_weight is None:
            raise ExportError(f"{path}: MultiheadAttention with kdim or vdim other than embed_dim: ctattn's layers "
                              f"take it only as self-attention; build it with kdim=vdim=embed_dim")
        if attn.in_proj_bias is None:
            raise ExportError(f"{path}: MultiheadAttention(bias=False): the generated layers have biases; build it "
                              f"with bias=True")
        if attn.bias_k is not None or attn.add_zero_attn:
            raise ExportError(f"{path}: MultiheadAttention with add_bias_kv or add_zero_attn: ctattn has neither; "
                              f"build it without them")
        self.settings[self.key(path, "num_heads")] = str(attn.num_heads)
        self.attention_widths.append(attn.embed_dim)

    def links(self, cpp_type: str) -> int:
        """ctattn::link_count of a generated type: a chain's members with nested chains spliced in, else 1."""
        return self.link_counts.get(cpp_type, 1)

    def transformer_layer(self, path: str, layer, decoder: bool) -> str:
        kind = "TransformerDecoderLayer" if decoder else "TransformerEncoderLayer"
        self.check_attention(self.key(path, "self_attn"), layer.self_attn)
        if decoder:
            self.check_attention(self.key(path, "multihead_attn"), layer.multihead_attn)
        norms = ["norm1", "norm2"] + (["norm3"] if decoder else [])
        for n in norms:
            self.check_norm(self.key(path, n), getattr(layer, n))
        for lin in ("linear1", "linear2"):
            if getattr(layer, lin).bias is None:
                raise ExportError(f"{self.key(path, lin)}: {kind} without biases: the generated layers have biases")
        activation = activation_name(self.key(path, "activation"), layer.activation)
        d = layer.self_attn.embed_dim
        heads = layer.self_attn.num_heads
        hidden = layer.linear1.out_features
        norm_first = bool(layer.norm_first)
        self.settings[self.key(path, "activation")] = activation
        self.settings[self.key(path, "norm_first")] = "true" if norm_first else "false"
        if decoder:
            self.decoder = True
        self.note_first(path, d)
        template = "transformer_decoder_layer" if decoder else "transformer_encoder_layer"
        if decoder:
            mask = ", ctattn::no_mask_type" if self.tgt_mask == "none" else ""
        else:
            mask = ", ctattn::causal_mask" if path in self.causal else ""
        return (f"ctattn::{template}<float, {d}, {heads}, {hidden}, ctattn::{activation}, {str(norm_first).lower()}"
                f"{mask}>")

    def note_first(self, path: str, first) -> None:
        if self.first is None:
            self.first = first

    def own_parameters(self, path: str, module) -> list:
        """A module's own nn.Parameters as ctattn members: a class token [1, 1, d] and learned positions [1, n, d],
        put right after the module's first child, in that order (as ViT and KWT run them); anything else refused."""
        where = path or "the model"
        tokens, positions = [], []
        for param_name, p in module.named_parameters(recurse=False):
            full = f"{path}.{param_name}" if path else param_name
            if p.dim() == 3 and p.shape[0] == 1 and p.shape[1] == 1:
                tokens.append((self.identifier(full, param_name), f"ctattn::class_token<float, {p.shape[2]}>"))
            elif p.dim() == 3 and p.shape[0] == 1:
                positions.append((self.identifier(full, param_name),
                                  f"ctattn::position_parameter<float, {p.shape[1]}, {p.shape[2]}>"))
            else:
                raise ExportError(f"{where}: {type(module).__name__} holds the parameter '{param_name}' of shape "
                                  f"{list(p.shape)} itself: the export maps a module's own parameters only as a class "
                                  f"token [1, 1, d] or learned positions [1, n, d]; hold the others in torch layers "
                                  f"({SUPPORTED})")
        if len(tokens) > 1 or len(positions) > 1:
            raise ExportError(f"{where}: {type(module).__name__} holds {len(tokens)} class tokens and "
                              f"{len(positions)} position tables; the export maps one of each")
        self.class_tokens += len(tokens)
        if tokens and positions:
            self.own_order.append((self.key(path, tokens[0][0]), self.key(path, positions[0][0])))
        return tokens + positions

    def chain(self, path: str, children: list, struct_name: str, own=()) -> str:
        """A module whose children run in order: a ctattn::model struct of them, or, for a list of layers with
        index names, a ctattn::sequential. `own`: the module's own parameters as members (own_parameters), run
        right after its first child."""
        _, nn = torch_modules()
        members = []
        items = [(n, m) for n, m in children if not skipped(m)]
        for i, (child_name, child) in enumerate(items):
            child_path = f"{path}.{child_name}" if path else child_name
            role = None
            if isinstance(child, nn.Embedding):
                previous = items[i - 1][1] if i > 0 else None
                if isinstance(previous, nn.Embedding):
                    role = "position"
                elif i == 0 and path == "":
                    role = "token"
                else:
                    raise ExportError(f"{child_path}: an nn.Embedding must be the model's first child (the tokens), "
                                      f"or come right after it (learned positions); move it there")
            if child_path in self.pools:
                kind = self.pools[child_path]
                pool_name = "pool" if "pool" not in dict(children) else "pool_"
                members.append((pool_name, "ctattn::class_token_pool" if kind == "token" else "ctattn::mean_pool"))
            members.append((self.identifier(child_path, child_name),
                            self.type_of(child_path, child, role, f"{struct_name}_{child_name}")))
            if i == 0:
                members.extend(own)
        if not members:
            raise ExportError(f"{path or 'the model'}: no layer to export (only Dropout or Identity children)")
        checked = [(f"{path}.{n}" if path else n, isinstance(m, nn.Embedding) and i > 0
                    and isinstance(items[i - 1][1], nn.Embedding)) for i, (n, m) in enumerate(items)]
        own_paths = [(f"{path}.{n}" if path else n, "own") for n, _ in own]
        self.chains.append((path, checked[:1] + own_paths + checked[1:]))
        struct_name = self.struct(struct_name, path)
        lines = [f"struct {struct_name} : ctattn::model<{struct_name}> {{",
                 f"  BOOST_HANA_DEFINE_STRUCT({struct_name},"]
        for k, (member, cpp) in enumerate(members):
            lines.append(f"                           ({cpp}, {member}){',' if k + 1 < len(members) else ''}")
        lines[-1] += ");"
        lines.append("};")
        self.structs.append("\n".join(lines))
        self.link_counts[struct_name] = sum(self.links(cpp) for _, cpp in members)
        return struct_name

    def sequence(self, path: str, items: list) -> str:
        types = []
        for index, child in items:
            if skipped(child):
                raise ExportError(f"{path}.{index}: {type(child).__name__} inside an nn.Sequential or ModuleList "
                                  f"shifts the state_dict indices ctattn::sequential numbers from 0; remove it")
            child_path = f"{path}.{index}" if path else str(index)
            types.append(self.type_of(child_path, child, None, f"{self.name}_{child_path.replace('.', '_')}"))
            if types[-1].startswith(self.name + "_"):
                # Rationale: ctattn::sequential reads its first and last layers' widths and element type, which a
                # model struct does not declare.
                raise ExportError(f"{child_path}: {type(child).__name__} inside an nn.Sequential or ModuleList: the "
                                  f"export maps only torch layers there; make the list's elements torch layers, or "
                                  f"make the module a plain attribute of its parent")
        self.chains.append((path, [(f"{path}.{index}" if path else str(index), False) for index, _ in items]))
        if len(types) > 1 and len(set(types)) == 1 and len(types[0]) > 60:
            # Rationale: a stack of one layer type reads best with the type named once.
            alias = self.struct(f"{self.name}_{path.replace('.', '_')}_layer" if path else f"{self.name}_layer", path)
            self.structs.append(f"using {alias} = {types[0]};")
            types = [alias] * len(types)
        sequential = "ctattn::sequential<" + ", ".join(types) + ">"
        self.link_counts[sequential] = len(types)
        return sequential

    def block(self, path: str, module) -> str | None:
        """A transformer block written as timm writes one: children `norm1`, `attn` (a fused `qkv` Linear d -> 3d,
        rows q, k, v with each head's columns together, a `proj` Linear and the head count as `num_heads` or
        `heads`), `norm2` and `mlp` (`fc1`, an activation `act`, `fc2`), and children without parameters (Dropout,
        Identity, DropPath). It is ctattn::transformer_encoder_layer: the tensors are written under that layer's
        names, a bias the module has not as zeros (adding zero is exact), and check_blocks checks by running it
        that the block computes that layer and whether it normalizes first (timm) or after the residual (KWT).
        None when the module is not shaped so."""
        _, nn = torch_modules()
        where = path or "the model"
        kind = type(module).__name__
        children = dict(module.named_children())
        attn, mlp = children.get("attn"), children.get("mlp")
        if attn is None or mlp is None or not all(n in children for n in ("norm1", "norm2")):
            return None
        parts = {"attn": dict(attn.named_children()), "mlp": dict(mlp.named_children())}
        if not all(isinstance(parts["attn"].get(n), nn.Linear) for n in ("qkv", "proj")) or not all(
                isinstance(parts["mlp"].get(n), nn.Linear) for n in ("fc1", "fc2")):
            return None
        qkv, proj = parts["attn"]["qkv"], parts["attn"]["proj"]
        fc1, fc2 = parts["mlp"]["fc1"], parts["mlp"]["fc2"]
        d = proj.out_features
        for norm_name in ("norm1", "norm2"):
            self.check_norm(self.key(path, norm_name), children[norm_name])
        if (qkv.in_features, qkv.out_features, proj.in_features) != (d, 3 * d, d) or (
                fc1.in_features, fc2.in_features, fc2.out_features) != (d, fc1.out_features, d) or any(
                children[n].normalized_shape[0] != d for n in ("norm1", "norm2")):
            raise ExportError(f"{where} ({kind}): a block of width {d} needs attn.qkv {d} -> {3 * d}, attn.proj, "
                              f"mlp.fc1 from and mlp.fc2 to {d}, and norms over {d}; it has qkv {qkv.in_features} -> "
                              f"{qkv.out_features}, fc1 from {fc1.in_features}, fc2 to {fc2.out_features}")
        heads = getattr(attn, "num_heads", getattr(attn, "heads", None))
        if not isinstance(heads, int) or heads <= 0 or d % heads != 0:
            raise ExportError(f"{self.key(path, 'attn')} ({type(attn).__name__}): the head count must be an int "
                              f"attribute `num_heads` (or `heads`) that divides {d}; it is {heads!r}")
        known = {"norm1", "norm2", "attn", "mlp"}
        extra = [(self.key(path, n), m) for n, m in children.items() if n not in known]
        extra += [(self.key(path, f"{owner}.{n}"), m) for owner, kids in parts.items() for n, m in kids.items()
                  if n not in ("qkv", "proj", "fc1", "fc2")]
        for extra_path, m in extra:
            if any(True for _ in m.parameters()):
                raise ExportError(f"{extra_path} ({type(m).__name__}): a block mapped to ctattn's encoder layer has "
                                  f"parameters only in norm1, attn.qkv, attn.proj, norm2, mlp.fc1 and mlp.fc2 "
                                  f"(LayerScale, q/k norms and others are not in ctattn's layer); build the block "
                                  f"without it")
        acts = [(n, m) for n, m in parts["mlp"].items() if isinstance(m, (nn.ReLU, nn.GELU, nn.SiLU))]
        if len(acts) != 1:
            raise ExportError(f"{self.key(path, 'mlp')} ({type(mlp).__name__}): ctattn's feed-forward has one "
                              f"activation module between fc1 and fc2 (nn.ReLU, nn.GELU or nn.SiLU); it has "
                              f"{len(acts)}")
        activation = activation_name(self.key(path, "mlp." + acts[0][0]), acts[0][1])
        norm_first = self.norm_first.get(path, True)
        torch, _ = torch_modules()

        def tensor(name, p, size):
            return (self.key(path, name), p.detach() if p is not None else torch.zeros(size))
        n1, n2 = children["norm1"], children["norm2"]
        self.blocks[path] = [
            tensor("self_attn.in_proj_weight", qkv.weight, None),
            tensor("self_attn.in_proj_bias", qkv.bias, 3 * d),
            tensor("self_attn.out_proj.weight", proj.weight, None),
            tensor("self_attn.out_proj.bias", proj.bias, d),
            tensor("linear1.weight", fc1.weight, None), tensor("linear1.bias", fc1.bias, fc1.out_features),
            tensor("linear2.weight", fc2.weight, None), tensor("linear2.bias", fc2.bias, d),
            (self.key(path, "norm1.weight"), n1.weight.detach() if n1.weight is not None else torch.ones(d)),
            tensor("norm1.bias", n1.bias, d),
            (self.key(path, "norm2.weight"), n2.weight.detach() if n2.weight is not None else torch.ones(d)),
            tensor("norm2.bias", n2.bias, d)]
        self.block_parts[path] = {"eps": (n1.eps, n2.eps), "act": acts[0][1]}
        return self.encoder_block(path, d, heads, fc1.out_features, activation, norm_first)

    def encoder_block(self, path: str, d: int, heads: int, hidden: int, activation: str, norm_first: bool) -> str:
        """The settings and C++ type of a block mapped to ctattn::transformer_encoder_layer (block(), pair())."""
        self.settings[self.key(path, "self_attn.num_heads")] = str(heads)
        self.attention_widths.append(d)
        self.settings[self.key(path, "activation")] = activation
        self.settings[self.key(path, "norm_first")] = "true" if norm_first else "false"
        self.note_first(path, d)
        return (f"ctattn::transformer_encoder_layer<float, {d}, {heads}, {hidden}, ctattn::{activation}, "
                f"{str(norm_first).lower()}>")

    def pair(self, path: str, module) -> str | None:
        """A transformer layer written as a pair of wrapped sublayers (the layout of Torch-KWT, the PyTorch KWT most
        users train, after lucidrains' ViT): an nn.ModuleList of two modules, each with children `norm` (a
        LayerNorm) and `fn`; the first's `fn` an attention (pair_attention), the second's a feed-forward block
        (pair_feed_forward); the parent's forward adds each wrapper's input to its output. It is
        ctattn::transformer_encoder_layer pre-norm (the wrapper normalizing first, x + fn(norm(x))); check_blocks
        checks it by running it, and refuses the wrapper that normalizes after (x + norm(fn(x))). None when the
        module is not shaped so."""
        _, nn = torch_modules()
        if not isinstance(module, nn.ModuleList) or len(module) != 2:
            return None
        wrappers = list(module)
        parts = [dict(w.named_children()) for w in wrappers]
        if not all(isinstance(p.get("norm"), nn.LayerNorm) and "fn" in p for p in parts):
            return None
        attn, feed = parts[0]["fn"], parts[1]["fn"]
        attn_path, feed_path = self.key(path, "0.fn"), self.key(path, "1.fn")
        qkv, heads, proj = self.pair_attention(attn_path, attn)
        d = qkv.in_features
        fc1, act, fc2 = self.pair_feed_forward(feed_path, feed, d)
        norms = [parts[0]["norm"], parts[1]["norm"]]
        for k, norm in enumerate(norms):
            self.check_norm(self.key(path, f"{k}.norm"), norm)
            if norm.normalized_shape[0] != d:
                raise ExportError(f"{self.key(path, f'{k}.norm')}: a LayerNorm over {norm.normalized_shape[0]} in a "
                                  f"layer of width {d}")
        for k, w in enumerate(wrappers):
            extra = [n for n, m in w.named_children() if n not in ("norm", "fn") and any(True for _ in m.parameters())]
            if extra:
                raise ExportError(f"{self.key(path, f'{k}.{extra[0]}')}: a wrapper mapped to ctattn's encoder layer "
                                  f"holds parameters only in `norm` and `fn`; build it without '{extra[0]}'")
        activation = activation_name(self.key(feed_path, "act"), act)
        self.blocks[path] = self.pair_tensors(path, d, qkv, proj, fc1, fc2, norms)
        self.block_parts[path] = {"eps": (norms[0].eps, norms[1].eps), "act": act}
        self.pairs[path] = (self.key(path, "0"), self.key(path, "1"))
        return self.encoder_block(path, d, heads, fc1.out_features, activation, self.norm_first.get(path, True))

    def pair_attention(self, attn_path: str, attn):
        """A wrapped pair's attention: a fused bias-free `to_qkv` Linear d -> 3d, its head count `heads` (or
        `num_heads`) and `to_out` (a Sequential holding one Linear, a Linear, or Identity when one head spans the
        width, written as the identity). Returns (to_qkv, heads, the output projection)."""
        _, nn = torch_modules()
        qkv = getattr(attn, "to_qkv", None)
        if not isinstance(qkv, nn.Linear):
            raise ExportError(f"{attn_path} ({type(attn).__name__}): the first of a wrapped pair must be the attention, "
                              f"with a fused Linear `to_qkv`; it has none")
        d = qkv.in_features
        heads = getattr(attn, "heads", getattr(attn, "num_heads", None))
        if qkv.out_features != 3 * d or not isinstance(heads, int) or heads <= 0 or d % heads != 0:
            raise ExportError(f"{attn_path} ({type(attn).__name__}): ctattn's attention has heads of width d / heads, "
                              f"so to_qkv must be {d} -> {3 * d} and `heads` an int that divides {d}; it is "
                              f"{qkv.in_features} -> {qkv.out_features} with heads {heads!r} (heads x dim_head must "
                              f"equal the width)")
        to_out = getattr(attn, "to_out", None)
        if isinstance(to_out, nn.Sequential):
            linears = [m for m in to_out if isinstance(m, nn.Linear)]
            if len(linears) != 1 or any(not isinstance(m, (nn.Linear, nn.Dropout, nn.Identity)) for m in to_out):
                raise ExportError(f"{self.key(attn_path, 'to_out')}: ctattn's output projection is one Linear (with "
                                  f"Dropout or Identity beside it); it holds {[type(m).__name__ for m in to_out]}")
            proj = linears[0]
        elif isinstance(to_out, (nn.Linear, nn.Identity)):
            proj = to_out
        else:
            raise ExportError(f"{self.key(attn_path, 'to_out')}: {type(to_out).__name__} as the output projection: "
                              f"ctattn's is a Linear, a Sequential of one, or Identity")
        extra = [n for n, m in attn.named_children() if n not in ("to_qkv", "to_out")
                 and any(True for _ in m.parameters())]
        if extra:
            raise ExportError(f"{self.key(attn_path, extra[0])}: an attention mapped to ctattn's has parameters only "
                              f"in to_qkv and to_out; build it without '{extra[0]}'")
        return qkv, heads, proj

    def pair_feed_forward(self, feed_path: str, feed, d: int):
        """A wrapped pair's feed-forward block: its `net` (or its children) Linear d -> h, an activation, Linear
        h -> d (Dropout and Identity skipped). Returns (the first Linear, the activation, the second Linear)."""
        _, nn = torch_modules()
        net = getattr(feed, "net", feed)
        steps = [m for m in net.children() if not isinstance(m, (nn.Dropout, nn.Identity))]
        if (len(steps) != 3 or not isinstance(steps[0], nn.Linear) or not isinstance(steps[2], nn.Linear)
                or not isinstance(steps[1], (nn.ReLU, nn.GELU, nn.SiLU))):
            raise ExportError(f"{feed_path} ({type(feed).__name__}): the second of a wrapped pair must be the "
                              f"feed-forward block, Linear, an activation (nn.ReLU, nn.GELU or nn.SiLU), Linear (Dropout "
                              f"between them is skipped); it runs {[type(m).__name__ for m in steps]}")
        fc1, act, fc2 = steps
        if (fc1.in_features, fc2.in_features, fc2.out_features) != (d, fc1.out_features, d):
            raise ExportError(f"{feed_path}: a feed-forward block of width {d} needs its Linears {d} -> h -> {d}; they "
                              f"are {fc1.in_features} -> {fc1.out_features} and {fc2.in_features} -> "
                              f"{fc2.out_features}")
        return fc1, act, fc2

    def pair_tensors(self, path: str, d: int, qkv, proj, fc1, fc2, norms) -> list:
        """A wrapped pair's tensors under nn.TransformerEncoderLayer's names: the identity for an Identity
        projection, zeros for a missing bias, ones and zeros for a LayerNorm without its affine parameters."""
        torch, nn = torch_modules()

        def weight(linear):
            return linear.weight.detach() if isinstance(linear, nn.Linear) else torch.eye(d)

        def bias(linear, size):
            return linear.bias.detach() if isinstance(linear, nn.Linear) and linear.bias is not None \
                else torch.zeros(size)

        def affine(norm, name, fill):
            p = getattr(norm, name)
            return p.detach() if p is not None else fill(d)
        return [
            (self.key(path, "self_attn.in_proj_weight"), qkv.weight.detach()),
            (self.key(path, "self_attn.in_proj_bias"), bias(qkv, 3 * d)),
            (self.key(path, "self_attn.out_proj.weight"), weight(proj)),
            (self.key(path, "self_attn.out_proj.bias"), bias(proj, d)),
            (self.key(path, "linear1.weight"), fc1.weight.detach()),
            (self.key(path, "linear1.bias"), bias(fc1, fc1.out_features)),
            (self.key(path, "linear2.weight"), fc2.weight.detach()),
            (self.key(path, "linear2.bias"), bias(fc2, d)),
            (self.key(path, "norm1.weight"), affine(norms[0], "weight", torch.ones)),
            (self.key(path, "norm1.bias"), affine(norms[0], "bias", torch.zeros)),
            (self.key(path, "norm2.weight"), affine(norms[1], "weight", torch.ones)),
            (self.key(path, "norm2.bias"), affine(norms[1], "bias", torch.zeros))]

    def state(self, module) -> dict:
        """The tensors to write, in the C++ model's order: the module's state_dict, each block's replaced by the
        tensors of ctattn's encoder layer (block())."""
        if self.llama_model is not None:
            return dict(self.llama_model["state"])
        out = {}
        written = set()
        for key, value in module.state_dict().items():
            block = next((b for b in self.blocks if b == "" or key.startswith(b + ".")), None)
            if block is None:
                out[key] = value
            elif block not in written:
                written.add(block)
                out.update(self.blocks[block])
        # A module's class token comes before its positions in the C++ model (own_parameters), whichever PyTorch
        # declared first (Torch-KWT declares the positions first).
        keys = list(out)
        for token, positions in self.own_order:
            i, j = keys.index(token), keys.index(positions)
            if i > j:
                keys[i], keys[j] = keys[j], keys[i]
        return {k: out[k] for k in keys}

    def patch_embedding(self, path: str, conv) -> str:
        """nn.Conv1d or nn.Conv2d with stride = kernel and no padding, the model's first layer, as a patch embedding
        over the input given with --input (channels first, as PyTorch takes it)."""
        _, nn = torch_modules()
        where = path or "the model"
        two = isinstance(conv, nn.Conv2d)
        kind = type(conv).__name__
        kernel, stride = tuple(conv.kernel_size), tuple(conv.stride)
        padding = conv.padding if isinstance(conv.padding, str) else tuple(conv.padding)
        if stride != kernel or padding not in ((0,), (0, 0), "valid") or tuple(conv.dilation) != (1,) * len(kernel) \
                or conv.groups != 1:
            raise ExportError(f"{where}: {kind}(kernel_size={kernel}, stride={stride}, padding={padding}, dilation="
                              f"{tuple(conv.dilation)}, groups={conv.groups}): ctattn exports a convolution as a patch "
                              f"embedding, with stride equal to the kernel, no padding, no dilation and one group; "
                              f"build it so, or leave it out of the model")
        if self.first is not None:
            raise ExportError(f"{where}: {kind} after another layer: ctattn exports a convolution as the patch "
                              f"embedding that cuts the model's input; make it the model's first layer")
        shape = self.input_shape
        dims = 4 if two else 3
        if len(shape) != dims or shape[0] != 1 or shape[1] != conv.in_channels:
            expected = "1xCxHxW" if two else "1xCxL"
            raise ExportError(f"{where}: {kind} takes {conv.in_channels} channels first: give --input as {expected} "
                              f"with C = {conv.in_channels} (PyTorch's layout; the C++ model takes the rows of "
                              f"positions or pixels, channels as columns)")
        for side, size, patch in zip(("height", "width") if two else ("length",), shape[2:], kernel):
            if size % patch != 0:
                raise ExportError(f"{where}: {kind} with kernel {kernel} over an input of {side} {size}: the patch "
                                  f"must divide the input; pad or crop the input, or choose another patch")
        self.patches = "2d" if two else "1d"
        self.patch_area = math.prod(kernel)
        self.note_first(path, conv.in_channels)
        bias = "true" if conv.bias is not None else "false"
        if two:
            return (f"ctattn::patch_embedding_2d<float, {conv.in_channels}, {shape[2]}, {shape[3]}, {kernel[0]}, "
                    f"{kernel[1]}, {conv.out_channels}, {bias}>")
        return f"ctattn::patch_embedding_1d<float, {conv.in_channels}, {kernel[0]}, {conv.out_channels}, {bias}>"

    def llama(self, module) -> str | None:
        """A llama-style language model laid out as llama2.c's `Transformer` (model.py) or as Hugging Face's
        `LlamaForCausalLM` (LLAMA_LAYOUTS holds both layouts' names): a token embedding (an nn.Embedding), a
        ModuleList of blocks, each an attention with bias-free Linears q, k, v, o, a SwiGLU feed-forward with
        bias-free w1 (gate), w2 (down), w3 (up), and two RMSNorms; a final RMSNorm and a bias-free Linear head (the
        embedding's table when tied). It is ctattn::llama_transformer: its tensors are written under llama2.c's
        names whatever the layout, a tied head's once (tok_embeddings.weight). None when the module is not shaped
        so; refused when it is, but something in it is not what the C++ model computes."""
        torch, nn = torch_modules()
        for layout in LLAMA_LAYOUTS.values():
            found = self.llama_layout(module, layout, torch, nn)
            if found is not None:
                return found
        return None

    def llama_layout(self, module, names: dict, torch, nn) -> str | None:
        """llama(), for the layout whose names `names` holds (one of LLAMA_LAYOUTS)."""
        def child(root, dotted):
            for part in dotted.split("."):
                root = dict(root.named_children()).get(part) if isinstance(root, nn.Module) else None
            return root

        embed, layers, norm, output = (child(module, names[n]) for n in ("embed", "layers", "norm", "output"))
        if any(m is None for m in (embed, layers, norm, output)):
            return None
        n_attn, n_ff = names["attention"], names["feed_forward"]
        if not isinstance(embed, nn.Embedding) or not isinstance(layers, nn.ModuleList) or not isinstance(
                output, nn.Linear) or not all(hasattr(b, n_attn) and hasattr(b, n_ff) for b in layers):
            return None
        kind = type(module).__name__
        where = f"the model ({kind}, {names['title']} layout)"
        hf = names["config"]
        config = getattr(module, "config", None) if hf else None
        if embed.padding_idx is not None or embed.max_norm is not None:
            raise ExportError(f"{names['embed']}: nn.Embedding with padding_idx or max_norm: ctattn's tables are "
                              f"plain; build it without them")
        vocab, d = embed.num_embeddings, embed.embedding_dim
        if len(layers) == 0:
            raise ExportError(f"{names['layers']}: {where} has no blocks; ctattn::llama_transformer has at least one")
        if output.bias is not None or (output.in_features, output.out_features) != (d, vocab):
            raise ExportError(f"{names['output']}: ctattn's llama head is a Linear {d} -> {vocab} without bias (or "
                              f"the embedding's table); it is {output.in_features} -> {output.out_features}"
                              f"{' with a bias' if output.bias is not None else ''}")
        # Tied as llama2.c and transformers tie them (`self.tok_embeddings.weight = self.output.weight`): the same
        # Parameter.
        tied = output.weight is embed.weight
        used = {id(embed.weight), id(output.weight)}  # the parameters written (ids), to refuse any other

        def rms(path, m, ours):
            """An RMSNorm over d with `.weight` and a positive `.eps` (or transformers' `.variance_epsilon`),
            checked by running it: x / sqrt(mean(x^2) + eps) * weight. Its eps is set under `ours`, the C++ model's
            (llama2.c's) name of it."""
            weight = getattr(m, "weight", None)
            eps = getattr(m, "eps", getattr(m, "variance_epsilon", None))
            named = [n for n, _ in m.named_parameters()]
            if not isinstance(weight, torch.Tensor) or tuple(weight.shape) != (d,) or named != ["weight"]:
                raise ExportError(f"{path} ({type(m).__name__}): ctattn's RMSNorm holds one parameter, `weight` of "
                                  f"shape [{d}]; it holds {named}")
            if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps > 0:
                raise ExportError(f"{path} ({type(m).__name__}): an RMSNorm's `{names['eps']}` must be a positive "
                                  f"number ({names['eps_default']}); it is {eps!r}")
            x = torch.randn(3, d, generator=torch.Generator().manual_seed(0))
            with torch.no_grad():
                want = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
                try:
                    got = m(x)
                except Exception as e:
                    raise ExportError(f"{path} ({type(m).__name__}): it fails on 3 rows of {d}: "
                                      f"{type(e).__name__}: {e}")
            if not (isinstance(got, torch.Tensor) and got.shape == want.shape
                    and float((got - want).abs().max()) <= 1e-5 * (1 + float(want.abs().max()))):
                raise ExportError(f"{path} ({type(m).__name__}): it does not compute an RMSNorm, x / sqrt(mean(x^2) + "
                                  f"eps) * weight with eps {eps}, which ctattn's llama blocks compute")
            key = self.key(ours, "eps")
            self.settings[key] = repr(float(eps))
            self.eps[key] = float(eps)
            used.add(id(weight))
            return weight.detach()

        def linear(path, m, fan_in, fan_out):
            if not isinstance(m, nn.Linear) or m.bias is not None or (m.in_features, m.out_features) != (fan_in,
                                                                                                        fan_out):
                got = (f"{type(m).__name__}" if not isinstance(m, nn.Linear) else
                       f"{m.in_features} -> {m.out_features}{' with a bias' if m.bias is not None else ''}")
                raise ExportError(f"{path}: ctattn's llama block takes an nn.Linear {fan_in} -> {fan_out} without "
                                  f"bias here; it is {got}")
            used.add(id(m.weight))
            return m.weight.detach()

        def config_int(attr):
            value = getattr(config, attr, None)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        state = [("tok_embeddings.weight", embed.weight.detach())]
        shapes = []
        for i, block in enumerate(layers):
            at = f"{names['layers']}.{i}"
            attn, ff = getattr(block, n_attn), getattr(block, n_ff)
            heads = kv = None
            for attr in names["heads"]:
                heads = getattr(attn, attr, None) if heads is None else heads
            for attr in names["kv_heads"]:
                kv = getattr(attn, attr, None) if kv is None else kv
            if not hf:
                heads = heads if heads is not None else getattr(block, "n_heads", None)
                kv = kv if kv is not None else getattr(block, "n_kv_heads", None)
            else:
                heads = heads if heads is not None else config_int("num_attention_heads")
                kv = kv if kv is not None else config_int("num_key_value_heads")
            if kv is None and isinstance(heads, int):
                wk = getattr(attn, names["k"], None)
                hd = getattr(attn, "head_dim", d // heads if heads else None)
                kv = wk.out_features // hd if isinstance(wk, nn.Linear) and isinstance(hd, int) and hd else None
            missing = [n for n, v in ((names["heads_said"], heads), (names["kv_heads_said"], kv)) if v is None]
            if missing:
                raise ExportError(f"{at}.{n_attn} ({type(attn).__name__}): the head counts are not in the tensors' "
                                  f"shapes, and the module has no {' nor '.join(missing)} ({names['heads_hint']}); "
                                  f"give the {names['heads_give']}")
            if not all(isinstance(v, int) and v > 0 for v in (heads, kv)) or d % heads or heads % kv:
                raise ExportError(f"{at}.{n_attn} ({type(attn).__name__}): {heads!r} heads over {kv!r} key/value "
                                  f"heads: ctattn's llama attention needs heads dividing {d} and key/value heads "
                                  f"dividing the heads")
            head_dim = d // heads
            if getattr(attn, "head_dim", head_dim) != head_dim or head_dim % 2:
                raise ExportError(f"{at}.{n_attn} ({type(attn).__name__}): head_dim "
                                  f"{getattr(attn, 'head_dim', head_dim)!r}: ctattn's llama attention has heads of an "
                                  f"even width dim / heads = {d} / {heads}")
            hidden = getattr(getattr(ff, names["w1"], None), "out_features", None)
            tensors = []
            for ours, sub, mine, fan_in, fan_out in (
                    ("attention.wq", n_attn, "q", d, d), ("attention.wk", n_attn, "k", d, kv * head_dim),
                    ("attention.wv", n_attn, "v", d, kv * head_dim), ("attention.wo", n_attn, "o", d, d),
                    ("feed_forward.w1", n_ff, "w1", d, hidden), ("feed_forward.w2", n_ff, "w2", hidden, d),
                    ("feed_forward.w3", n_ff, "w3", d, hidden)):
                m = getattr(getattr(block, sub), names[mine], None)
                tensors.append((f"layers.{i}.{ours}.weight", linear(f"{at}.{sub}.{names[mine]}", m, fan_in, fan_out)))
            for ours in ("attention_norm", "ffn_norm"):
                n = names[ours]
                if not hasattr(block, n):
                    raise ExportError(f"{at} ({type(block).__name__}): a llama block has RMSNorms "
                                      f"`{names['attention_norm']}` and `{names['ffn_norm']}`; it has no '{n}'")
                tensors.append((f"layers.{i}.{ours}.weight",
                                rms(f"{at}.{n}", getattr(block, n), f"layers.{i}.{ours}")))
            state += tensors
            shapes.append((heads, kv, hidden))
            self.settings[f"layers.{i}.attention.n_heads"] = str(heads)  # the C++ model's names, llama2.c's
            self.settings[f"layers.{i}.attention.n_kv_heads"] = str(kv)
            self.attention_widths.append(d)
        if len(set(shapes)) != 1:
            raise ExportError(f"{names['layers']}: its blocks differ (heads, key/value heads, hidden: {shapes}); "
                              f"ctattn::llama_transformer repeats one block")
        heads, kv, hidden = shapes[0]
        state.append(("norm.weight", rms(names["norm"], norm, "norm")))
        if not tied:
            state.append(("output.weight", output.weight.detach()))
        # The parameters the model holds beyond these would be lost: refuse them.
        extra = [n for n, p in module.named_parameters() if id(p) not in used]
        if extra:
            raise ExportError(f"{extra[0]}: {where} holds a parameter ctattn's llama model has not (it holds "
                              f"{names['holds']}); build the model without it")
        head_dim = d // heads
        buffers = dict(module.named_buffers())
        rotary, base = "", 10000
        if hf:
            # transformers: rope_theta (default 10000) the base, rotate_half's pairs (p, p + head_dim / 2), and
            # max_position_embeddings the positions, all in the config.
            if config is None:
                raise ExportError(f"{where}: it has no `config`; ctattn reads max_position_embeddings (and "
                                  f"rope_theta, the head counts when the attention lacks them) from it")
            theta = getattr(config, "rope_theta", 10000)
            if isinstance(theta, bool) or not isinstance(theta, (int, float)) or theta != int(theta) or theta <= 1:
                raise ExportError(f"config.rope_theta: {theta!r}; ctattn's rotary base is an integer greater than 1 "
                                  f"(ctattn::llama_transformer's Base); export a model whose rope_theta is one")
            base = int(theta)
            scaling = getattr(config, "rope_scaling", None)
            if scaling:
                raise ExportError(f"config.rope_scaling: {scaling!r}; ctattn's rotary positions are unscaled "
                                  f"(cos and sin of t / rope_theta^(2p / head_dim)); export a model without it")
            positions = config_int("max_position_embeddings")
            if positions is None or positions <= 0:
                raise ExportError(f"{where}: config.max_position_embeddings is missing or not a positive integer "
                                  f"({getattr(config, 'max_position_embeddings', None)!r}); ctattn needs the "
                                  f"positions")
            inv = next((b for n, b in buffers.items() if n.endswith("inv_freq")), None)
            if inv is not None:
                want = 1.0 / (float(base) ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
                if tuple(inv.shape) != tuple(want.shape) or not float(
                        (inv.double() - want).abs().max()) <= 1e-6 * float(want.abs().max()):
                    raise ExportError(f"inv_freq: the rotary frequencies are not 1 / {base}^(2p / {head_dim}) "
                                      f"(config.rope_theta {theta!r}); ctattn's llama attention computes those")
            rotary = f", ctattn::rotary_layout::rotate_half, {base}"
        else:
            # The positions: the rotary tables' rows (llama2.c's freqs_cos, freqs_sin), or params.max_seq_len.
            cos, sin = buffers.get("freqs_cos"), buffers.get("freqs_sin")
            params = getattr(module, "params", None)
            if cos is not None and sin is not None:
                if cos.dim() != 2 or tuple(cos.shape) != tuple(sin.shape) or cos.shape[1] != head_dim // 2:
                    raise ExportError(f"freqs_cos, freqs_sin: rotary tables of shape {list(cos.shape)} and "
                                      f"{list(sin.shape)}; llama2.c's are [max_seq_len, head_dim / 2 = "
                                      f"{head_dim // 2}]")
                positions = cos.shape[0]
                t = torch.arange(positions, dtype=torch.float64)
                freqs = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
                angles = torch.outer(t, freqs)
                gap = max(float((cos.double() - torch.cos(angles)).abs().max()),
                          float((sin.double() - torch.sin(angles)).abs().max()))
                if not gap <= 1e-3:
                    raise ExportError(f"freqs_cos, freqs_sin: the rotary tables are not cos and sin of t / "
                                      f"10000^(2p / {head_dim}) (they differ by {gap:.3g}): ctattn's llama attention "
                                      f"computes those (theta 10000, llama2.c's default); export a model built with "
                                      f"them")
            elif isinstance(getattr(params, "max_seq_len", None), int):
                positions = params.max_seq_len
            else:
                raise ExportError(f"{where}: the positions are neither the rows of rotary buffers freqs_cos and "
                                  f"freqs_sin nor params.max_seq_len; give the model one of them")
        self.note_first(names["embed"], "ids")
        self.llama_model = {"positions": positions, "tied": tied, "state": state, "vocabulary": vocab}
        return (f"ctattn::llama_transformer<float, {vocab}, {d}, {len(layers)}, {heads}, {kv}, {hidden}, "
                f"{positions}, {str(tied).lower()}{rotary}>")

    def type_of(self, path: str, module, role: str | None, struct_name: str) -> str:
        torch, nn = torch_modules()
        where = path or "the model"
        if isinstance(module, (nn.Conv1d, nn.Conv2d)):
            return self.patch_embedding(path, module)
        if isinstance(module, nn.Linear):
            self.note_first(path, module.in_features)
            bias = "true" if module.bias is not None else "false"
            return f"ctattn::linear<float, {module.in_features}, {module.out_features}, ctattn::out_by_in, {bias}>"
        if isinstance(module, nn.Embedding):
            if module.padding_idx is not None or module.max_norm is not None:
                raise ExportError(f"{where}: nn.Embedding with padding_idx or max_norm: ctattn's tables are plain; "
                                  f"build it without them")
            if role == "position":
                return f"ctattn::position_embedding<float, {module.num_embeddings}, {module.embedding_dim}>"
            self.note_first(path, "ids")
            return f"ctattn::token_embedding<float, {module.num_embeddings}, {module.embedding_dim}>"
        if isinstance(module, nn.LayerNorm):
            if not module.elementwise_affine:
                affine = "false"
            else:
                affine = "true"
            self.check_norm(path, module)
            self.note_first(path, module.normalized_shape[0])
            return f"ctattn::layer_norm<float, {module.normalized_shape[0]}, {affine}>"
        if isinstance(module, (nn.ReLU, nn.GELU, nn.SiLU)):
            return f"ctattn::{activation_name(where, module)}"
        if isinstance(module, nn.MultiheadAttention):
            self.check_attention(path, module)
            self.note_first(path, module.embed_dim)
            mask = ", ctattn::causal_mask" if path in self.causal else ""
            return (f"ctattn::multi_head_attention_layer<ctattn::multi_head_attention_weights<float, "
                    f"{module.num_heads}, {module.embed_dim}, ctattn::out_by_in, true>{mask}>")
        if isinstance(module, nn.TransformerEncoderLayer):
            return self.transformer_layer(path, module, decoder=False)
        if isinstance(module, nn.TransformerDecoderLayer):
            return self.transformer_layer(path, module, decoder=True)
        if isinstance(module, (nn.TransformerEncoder, nn.TransformerDecoder)):
            children = [("layers", module.layers)] + ([("norm", module.norm)] if module.norm is not None else [])
            return self.chain(path, children, struct_name)
        pair = self.pair(path, module) if isinstance(module, nn.ModuleList) else None
        if pair is not None:
            return pair
        if isinstance(module, (nn.Sequential, nn.ModuleList)):
            return self.sequence(path, list(module.named_children()))
        block = None if type(module).__module__.startswith("torch.") else self.block(path, module)
        if block is not None:
            return block
        if type(module).__module__.startswith("torch."):
            raise ExportError(f"{where}: {type(module).__name__} is not a layer ctattn exports. Supported: "
                              f"{SUPPORTED}")
        if any(True for _ in module.named_buffers(recurse=False)):
            buffer = next(n for n, _ in module.named_buffers(recurse=False))
            raise ExportError(f"{where}: {type(module).__name__} holds the buffer '{buffer}' (a computed table such "
                              f"as a sinusoidal encoding): ctattn's models hold parameters only; learn the positions "
                              f"with an nn.Embedding, or leave the module out of the export")
        own = self.own_parameters(path, module)
        return self.chain(path, list(module.named_children()), struct_name, own)


class ChainCalls:
    """What one run of the module did, by member path: the inputs and output of each call of every watched member,
    and the order of the calls (check_chains)."""

    def __init__(self, module, decl: "Declarations", run, example):
        torch, _ = torch_modules()
        self.decl = decl
        self.modules = dict(module.named_modules())
        self.calls: dict[str, list] = {}
        self.order: list[str] = []

        def snapshot(value):
            return value.detach().clone() if isinstance(value, torch.Tensor) else value

        def hook(path):
            def record(m, inputs, output):
                # Rationale: copies, so that an in-place operation after the call (y += x) cannot change what is
                # compared.
                first = output[0] if isinstance(output, tuple) else output
                self.calls.setdefault(path, []).append((tuple(snapshot(i) for i in inputs), snapshot(first)))
                self.order.append(path)
            return record

        watched = ({""} | {p for _, members in decl.chains for p, role in members if role != "own"}
                   | {p for p, _ in decl.chains} | {w for pair in decl.pairs.values() for w in pair})
        handles = [self.modules[path].register_forward_hook(hook(path)) for path in watched]
        try:
            run(example)
        finally:
            for h in handles:
                h.remove()

    def io(self, member):
        """(inputs, output, position in the call order) of a member's one call; None when it was not called,
        "twice" when it was called more than once; a ModuleList's from its ends; a wrapped pair's
        (Declarations.pair) from its wrappers, its output the residual sum its parent makes."""
        _, nn = torch_modules()
        calls = self.calls
        if member in self.decl.pairs:
            attend, feed = self.decl.pairs[member]
            if attend not in calls or feed not in calls:
                return None
            if len(calls[attend]) > 1 or len(calls[feed]) > 1:
                return "twice"
            feed_input = calls[feed][0][0][0]
            return calls[attend][0][0], feed_input + calls[feed][0][1], self.order.index(attend)
        if isinstance(self.modules[member], nn.ModuleList):
            children = [f"{member}.{n}" for n, _ in self.modules[member].named_children()]
            ends = [self.io(children[0]), self.io(children[-1])] if children else [None]
            if any(e is None or e == "twice" for e in ends):
                return None
            return ends[0][0], ends[1][1], ends[0][2]
        if member not in calls:
            return None
        if len(calls[member]) > 1:
            return "twice"
        return calls[member][0][0], calls[member][0][1], self.order.index(member)

    def times_called(self, member) -> int:
        return len(self.calls[self.decl.pairs.get(member, (member,))[0]])


def same_tensor(a, b) -> bool:
    torch, _ = torch_modules()
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)


def members_called_in_order(ran: ChainCalls, where: str, kind: str, members) -> list:
    """The call of each member of a chain (None for a module's own parameter), each called once and in declaration
    order, or the error that says which is not."""
    seen = []
    for member, role in members:
        if role == "own":
            seen.append(None)
            continue
        got = ran.io(member)
        if got is None:
            raise ExportError(f"{where} ({kind}): its forward does not call '{member}'; ctattn::model runs every "
                              f"member: remove the unused module")
        if got == "twice":
            raise ExportError(f"{where} ({kind}): its forward calls '{member}' {ran.times_called(member)} times; "
                              f"ctattn::model runs each member once: give each use its own module")
        seen.append(got)
    called = [(got, m) for got, (m, role) in zip(seen, members) if role != "own"]
    positions = [got[2] for got, _ in called]
    if positions != sorted(positions):
        order = [m for _, m in sorted(zip(positions, (m for _, m in called)))]
        raise ExportError(f"{where} ({kind}): its forward runs its members in another order ({', '.join(order)}) "
                          f"than it declares them; ctattn::model runs them in the declared order: declare them "
                          f"in the order forward runs them")
    return seen


def with_own_parameter(member: str, p, previous, previous_path: str):
    """The rows after a module's own parameter: a class token (one row, put first) or learned positions (added)."""
    torch, _ = torch_modules()
    if not (isinstance(previous, torch.Tensor) and previous.dim() == 3 and previous.shape[-1] == p.shape[-1]
            and (p.shape[1] == 1 or p.shape[1] >= previous.shape[1])):
        raise ExportError(f"'{member}': a module's own parameter {list(p.shape)} is exported as a class "
                          f"token or learned positions over the rows of '{previous_path}', which are "
                          f"{list(previous.shape) if isinstance(previous, torch.Tensor) else 'not rows'}")
    if p.shape[1] == 1:
        return torch.cat([p.expand(previous.shape[0], -1, -1), previous], dim=1)
    return previous + p[:, :previous.shape[1]]


def pooling_of(fed, expected) -> str | None:
    """"token" when a member is fed the rows' first (x[:, 0]), "mean" their mean (x.mean(dim=1)), else None."""
    torch, _ = torch_modules()
    if same_tensor(fed, expected) or not (isinstance(expected, torch.Tensor) and expected.dim() == 3
                                          and isinstance(fed, torch.Tensor)):
        return None
    if same_tensor(fed, expected[:, 0]):
        return "token"
    if same_tensor(fed, expected.mean(dim=1)):
        return "mean"
    return None


def check_chain_flow(ran: ChainCalls, path: str, members, seen, whole, params, pools: dict) -> None:
    """Each member of the chain at `path` fed the output of the one before (the token embedding plus the positions
    after it; after a module's own class token or positions, the rows with the token put first or the positions
    added; or the rows pooled, noted in `pools`), the chain's output the last member's."""
    torch, nn = torch_modules()
    modules = ran.modules
    where = f"'{path}'" if path else "the model"
    kind = type(modules[path]).__name__
    previous, previous_path, token = None, None, None
    for k, ((member, is_position), got) in enumerate(zip(members, seen)):
        if is_position == "own":
            previous = with_own_parameter(member, params[member].detach(), previous, previous_path)
            previous_path = member
            continue
        inputs, output, _ = got
        if isinstance(modules[member], nn.MultiheadAttention) and not (
                len(inputs) >= 3 and same_tensor(inputs[0], inputs[1]) and same_tensor(inputs[1], inputs[2])):
            raise ExportError(f"'{member}': nn.MultiheadAttention is exported as self-attention: the forward must "
                              f"give it the same rows as query, key and value, by position "
                              f"(attention(h, h, h, ...))")
        fed = inputs[0] if inputs else None
        if is_position:
            n = fed.shape[-1] if isinstance(fed, torch.Tensor) and fed.dim() > 0 else 0
            if not (isinstance(fed, torch.Tensor) and same_tensor(fed.reshape(-1), torch.arange(n))):
                raise ExportError(f"'{member}': an nn.Embedding after the token embedding is exported as learned "
                                  f"positions, and the forward must give it torch.arange(n); it gives it "
                                  f"something else")
            token = previous
        elif k == 0:
            if not isinstance(modules[path], nn.ModuleList) and whole[0] and not same_tensor(fed, whole[0][0]):
                raise ExportError(f"{where} ({kind}): its first member '{member}' takes something other than "
                                  f"the input; ctattn::model feeds its first member the input")
        else:
            expected = previous if token is None else token + previous
            pooled = pooling_of(fed, expected)
            if pooled:
                pools[member] = pooled
            elif not same_tensor(fed, expected):
                what = (f"the sum of '{members[k - 2][0]}' and '{previous_path}'" if token is not None
                        else f"the output of '{previous_path}'")
                raise ExportError(f"{where} ({kind}): '{member}' takes something other than {what} (a "
                                  f"residual, a scale, a pooling other than x[:, 0] and x.mean(dim=1), or another "
                                  f"function between them); ctattn::model runs its members one after another: put "
                                  f"that computation in a module ctattn has, or leave it out")
            token = None
        if isinstance(modules[member], nn.Conv2d):
            output = output.flatten(2).transpose(1, 2)  # the patches as rows, as ctattn's layer gives them
        elif isinstance(modules[member], nn.Conv1d):
            output = output.transpose(1, 2)
        previous, previous_path = output, member
    if not isinstance(modules[path], nn.ModuleList) and not same_tensor(whole[1], previous if token is None
                                                                         else token + previous):
        raise ExportError(f"{where} ({kind}): its output is not the output of its last member '{previous_path}' "
                          f"(something is computed after it); move it into a module ctattn has, or leave it out")


def check_chains(module, decl: "Declarations", run, example) -> dict:
    """Runs the module once with hooks on every member of every chain and checks that the forward is the chain the
    C++ model runs: each member called once, in declaration order, each fed the output of the one before
    (check_chain_flow), the chain's output the last member's. Returns the members whose input is the rows before
    them pooled, as {member path: "token" (x[:, 0]) or "mean" (x.mean(dim=1))}."""
    ran = ChainCalls(module, decl, run, example)
    params = dict(module.named_parameters())
    pools: dict[str, str] = {}
    for path, members in decl.chains:
        whole = ran.io(path)
        if whole is None:
            continue  # not called: the chain around it says so
        where = f"'{path}'" if path else "the model"
        seen = members_called_in_order(ran, where, type(ran.modules[path]).__name__, members)
        check_chain_flow(ran, path, members, seen, whole, params, pools)
    return pools


def check_blocks(module, decl: "Declarations", run, example) -> dict:
    """Runs the module once and checks that every block mapped to ctattn's encoder layer (Declarations.block)
    computes it: its output on the input it got is nn.TransformerEncoderLayer's, built from the tensors the block
    writes, with the norms first (timm) or after each residual (KWT). Returns {block path: norm first}."""
    torch, nn = torch_modules()
    if not decl.blocks:
        return {}
    modules = dict(module.named_modules())
    seen = {}

    def hook(path):
        def record(m, inputs, output):
            y = output[0] if isinstance(output, tuple) else output
            seen.setdefault(path, (inputs[0].detach().clone(), y.detach().clone()))
        return record

    # A block is hooked itself; a wrapped pair (Declarations.pair), which is never called, by its two wrappers: its
    # input is the first's, its output the second's input plus its output (the residual its parent adds).
    hooked = [w for p in decl.blocks for w in decl.pairs.get(p, (p,))]
    handles = [modules[p].register_forward_hook(hook(p)) for p in hooked]
    try:
        run(example)
    finally:
        for h in handles:
            h.remove()
    for path, (attend, feed) in decl.pairs.items():
        if attend in seen and feed in seen:
            seen[path] = (seen[attend][0], seen[feed][0] + seen[feed][1])
    found = {}
    for path, tensors in decl.blocks.items():
        if path not in seen:
            continue  # not called: the chain around it says so
        block = modules[path]
        where = f"'{path}'" if path else "the model"
        x, y = seen[path]
        local = {k[len(path) + 1:] if path else k: v for k, v in tensors}
        d = local["norm1.weight"].shape[0]
        hidden = local["linear1.weight"].shape[0]
        heads = int(decl.settings[decl.key(path, "self_attn.num_heads")])
        parts = decl.block_parts[path]
        gaps = {}
        for norm_first in (True, False):
            layer = nn.TransformerEncoderLayer(d, heads, hidden, dropout=0.0, activation=parts["act"],
                                               batch_first=True, norm_first=norm_first)
            layer.norm1.eps, layer.norm2.eps = parts["eps"]
            layer.load_state_dict(local)
            with torch.no_grad():
                z = layer.eval()(x)
            gaps[norm_first] = (float((z - y).abs().max()) / (1 + float(y.abs().max()))
                                if z.shape == y.shape else math.inf)
        best = min(gaps, key=gaps.get)
        if path in decl.pairs and not gaps[best] <= 1e-5:
            raise ExportError(f"{where} ({type(block).__name__} of {type(block[0]).__name__} and "
                              f"{type(block[1]).__name__}): with its parent's residuals it computes neither "
                              f"x + attention(norm(x)), then x + feed_forward(norm(x)) (the wrapper normalizing "
                              f"first), nor norm(x + attention(x)), then norm(x + feed_forward(x)); the closest differs "
                              f"by {gaps[best]:.3g}. A wrapper that normalizes its sublayer's output inside the "
                              f"residual, x + norm(fn(x)), is not ctattn's encoder layer: train the model with the "
                              f"wrapper that normalizes first (pre_norm=True)")
        if not gaps[best] <= 1e-5:
            raise ExportError(f"{where} ({type(block).__name__}): its forward computes neither x + attn(norm1(x)), "
                              f"then x + mlp(norm2(x)) (norm first, as timm) nor norm1(x + attn(x)), then "
                              f"norm2(x + mlp(x)) (norm after the residual, as KWT), with attn the attention of "
                              f"attn.qkv and attn.proj over {heads} heads (scaled by 1/sqrt({d // heads})) and mlp "
                              f"fc2(act(fc1(x))); the closest differs by {gaps[best]:.3g}. ctattn's encoder layer "
                              f"computes those two: write the block so, or build it of torch layers")
        found[path] = best
    return found


def check_control_flow(module, run, example) -> None:
    """Runs the module once, watching every tensor turned into a Python value (bool, int, float, item(), tolist())
    by code outside torch: a branch on the data, which the golden inputs cannot cover (a ctattn model computes the
    same operations for every input). Refuses the first one, naming the module, the file and the line."""
    torch, nn = torch_modules()
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    conversions = ("__bool__", "__int__", "__float__", "__index__", "item", "tolist", "numpy")
    saved = {n: (n in vars(torch.Tensor), getattr(torch.Tensor, n)) for n in conversions}
    found = []

    def watch(original):
        def converted(self, *args, **kwargs):
            caller = sys._getframe(1)
            if not found and not os.path.abspath(caller.f_code.co_filename).startswith(torch_dir):
                found.append((caller.f_code, caller.f_lineno))
            return original(self, *args, **kwargs)
        return converted

    try:
        for n, (_, original) in saved.items():
            setattr(torch.Tensor, n, watch(original))
        run(example)
    finally:
        for n, (own, original) in saved.items():
            if own:
                setattr(torch.Tensor, n, original)
            else:
                delattr(torch.Tensor, n)
    if not found:
        return
    code, line = found[0]
    import linecache
    source = linecache.getline(code.co_filename, line).strip()
    owner = next(((p, m) for p, m in module.named_modules()
                  if getattr(getattr(type(m), "forward", None), "__code__", None) is code), None)
    where = (f"{repr(owner[0]) if owner[0] else 'the model'} ({type(owner[1]).__name__}): its forward" if owner
             else f"{code.co_name}(), called by the model's forward,")
    raise ExportError(f"{where} turns a tensor into a Python value at {Path(code.co_filename).name}:{line} "
                      f"(`{source}`): what runs next depends on the input's values, so the golden inputs cannot show "
                      f"that the C++ model agrees with PyTorch on other inputs (a ctattn model computes the same "
                      f"operations for every input). Compute both branches and pick with torch.where, or export the "
                      f"model without the branch")


def find_causal(module, run, example) -> list[str]:
    """The paths of the encoder layers and self-attention modules whose forward gets a causal mask (a decoder-only
    model's), found by running each again on the input it got, without a mask and with PyTorch's causal one, and
    comparing with what it returned. A mask that is neither is refused."""
    torch, nn = torch_modules()
    modules = dict(module.named_modules())
    layer_types = (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)
    watched = [p for p, m in modules.items()
               if isinstance(m, nn.TransformerEncoderLayer)
               or (isinstance(m, nn.MultiheadAttention) and not isinstance(modules.get(p.rpartition(".")[0]),
                                                                           layer_types))]
    seen = {}

    def hook(path):
        def record(m, inputs, output):  # returns None: the output stays the module's
            seen.setdefault(path, (inputs, output[0] if isinstance(output, tuple) else output))
        return record

    handles = [modules[p].register_forward_hook(hook(p)) for p in watched]
    try:
        run(example)
    finally:
        for h in handles:
            h.remove()
    causal = []
    for path, (inputs, output) in seen.items():
        m = modules[path]
        x = inputs[0]
        n = x.shape[-2] if x.dim() >= 2 else x.shape[0]
        mask = nn.Transformer.generate_square_subsequent_mask(n)
        with torch.no_grad():
            if isinstance(m, nn.MultiheadAttention):
                plain = m(x, x, x, need_weights=False)[0]
                masked = m(x, x, x, need_weights=False, attn_mask=mask)[0]
            else:
                plain = m(x)
                masked = m(x, src_mask=mask)

        def gap(y):
            return float((y - output).abs().max()) / (1 + float(output.abs().max()))
        if torch.equal(plain, output) or gap(plain) <= 1e-6:
            continue
        if torch.equal(masked, output) or gap(masked) <= 1e-6:
            causal.append(path)
            continue
        raise ExportError(f"'{path}': its forward gets a mask or padding that is not the causal mask (it computes "
                          f"neither the unmasked nor the causal result); ctattn's layers take the causal mask in "
                          f"their type and other masks per call: export the model without it")
    return causal


# ---------------------------------------------------------------------------------------------------------------
# Files.

def float_literal(x: float) -> str:
    """An exact C++ literal of a float32 value."""
    x = float(x)
    if math.isnan(x):
        bits = struct.unpack("<I", struct.pack("<f", x))[0]
        return "std::bit_cast<float>(0x%08xu)" % bits
    if math.isinf(x):
        return ("-" if x < 0 else "") + "std::numeric_limits<float>::infinity()"
    return x.hex() + "f"


def generated_banner(what: str, command: str) -> str:
    return (f"// {what}\n// GENERATED by ctattn-export ({command}); do not edit, export again.\n")


# The one safetensors writer of the repository: this tool's weights, the reader's fixtures
# (tests/fixtures/safetensors/make_fixtures.py), the fuzzer's seeds (fuzz/make_corpus.py) and the verified model's
# weights (examples/verified_model/train_sorter.py) are all laid out by these two functions, with the standard library
# alone (no torch), as the safetensors library lays a file out.
def safetensors_bytes(header: dict | str, data: bytes = b"", pad: bool = True) -> bytes:
    """A whole file: the header's length (8 bytes, little-endian), the header, then `data`.

    `header` is a dict, written as compact JSON, or a text written as it is (a malformed seed); `pad` adds spaces
    to a multiple of 8 bytes, as the safetensors writer does."""
    text = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    raw = text.encode("utf-8")
    if pad:
        raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + bytes(data)


def safetensors_layout(tensors: list, metadata: dict | None = None,
                       header_order: list[str] | None = None) -> tuple[dict, bytes]:
    """The header and the data of `tensors`, a list of (name, dtype, shape, little-endian bytes) in the data's order.

    The header lists `__metadata__` first (when given), then the tensors in `header_order` (their names; by default
    the data's order)."""
    header, data, offsets = {}, bytearray(), {}
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, _, _, raw in tensors:
        offsets[name] = [len(data), len(data) + len(raw)]
        data += raw
    entries = {name: (dtype, list(shape)) for name, dtype, shape, _ in tensors}
    for name in header_order if header_order is not None else [t[0] for t in tensors]:
        dtype, shape = entries[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": offsets[name]}
    return header, bytes(data)


def write_safetensors(path: str | Path, state: dict, metadata: dict) -> None:
    """A state_dict's tensors as F32, in its order, with `metadata`."""
    torch, _ = torch_modules()
    tensors = [(name, "F32", t.shape, t.detach().to(dtype=torch.float32).contiguous().numpy().astype("<f4").tobytes())
               for name, t in state.items()]
    header, data = safetensors_layout(tensors, metadata)
    Path(path).write_bytes(safetensors_bytes(header, data))


def read_safetensors(path: str | Path) -> dict:
    torch, _ = torch_modules()
    raw = Path(path).read_bytes()
    if len(raw) < 8:
        raise ExportError(f"{path}: not a .safetensors file (shorter than its 8-byte header length)")
    (length,) = struct.unpack("<Q", raw[:8])
    if 8 + length > len(raw):
        raise ExportError(f"{path}: its header length {length} runs past the end of the file")
    header = json.loads(raw[8:8 + length])
    state = {}
    dtypes = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in dtypes:
            raise ExportError(f"{path}: tensor '{name}' has dtype {info['dtype']}; weights are floating point")
        begin, end = info["data_offsets"]
        chunk = bytearray(raw[8 + length + begin:8 + length + end])
        state[name] = torch.frombuffer(chunk, dtype=dtypes[info["dtype"]]).reshape(info["shape"]).clone()
    return state


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------------------------
# The generated files' templates (export_templates/*.in, installed beside the tool).

def templates_dir() -> Path:
    """The templates beside the tool: tools/export_templates/ in the source tree; in an install,
    share/ctattn/export_templates/ (from bin/ctattn-export or from share/ctattn/python/ctattn_export.py)."""
    for candidate in (HERE / "export_templates", HERE.parent / "share" / "ctattn" / "export_templates",
                      HERE.parent / "export_templates"):
        if (candidate / "model.hpp.in").is_file():
            return candidate
    raise ExportError(f"the templates of the generated files (export_templates/model.hpp.in) are not beside the tool "
                      f"({HERE}); install ctattn again, or run tools/ctattn_export.py from the source tree")


_PLACEHOLDER = re.compile(r"@(\w+)@")


def _parse_template(lines: list[str], at: int, ends: tuple[str, ...], source: str) -> tuple[list, int, str]:
    """The nodes of `lines` from `at` up to a line in `ends`: a text line (str), ("if", negated, name, then, other) or
    ("for", body). Returns the nodes, the index after the end line, and the end line."""
    nodes: list = []
    while at < len(lines):
        line = lines[at]
        word = line.strip()
        at += 1
        if word.startswith("@#"):
            continue
        if word in ends:
            return nodes, at, word
        condition = re.fullmatch(r"@if (not )?(\w+)@", word)
        if condition:
            then, at, end = _parse_template(lines, at, ("@else@", "@endif@"), source)
            other: list = []
            if end == "@else@":
                other, at, _ = _parse_template(lines, at, ("@endif@",), source)
            nodes.append(("if", bool(condition[1]), condition[2], then, other))
        elif word == "@for g@":
            body, at, _ = _parse_template(lines, at, ("@endfor@",), source)
            nodes.append(("for", body))
        elif word in ("@else@", "@endif@", "@endfor@") or word.startswith(("@if ", "@for ")):
            raise ExportError(f"{source}, line {at}: '{word}' out of place")
        else:
            nodes.append(line)
    if ends:
        raise ExportError(f"{source}: ends before {' or '.join(ends)}")
    return nodes, at, ""


def _expand(nodes: list, values: dict, out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, str):
            block = re.fullmatch(r"@(\w+)@\n?", node)
            if block:  # a line that is only a value: the value's lines, none when it is empty
                text = str(values[block[1]])
                out.append(text if not text or text.endswith("\n") else text + "\n")
            else:
                out.append(_PLACEHOLDER.sub(lambda m: str(values[m[1]]), node))
        elif node[0] == "if":
            _, negated, name, then, other = node
            _expand(then if bool(values[name]) != negated else other, values, out)
        else:
            for g in range(values["golden"]):
                _expand(node[1], {**values, "g": g}, out)


def render(template: str, values: dict) -> str:
    """The text of export_templates/<template> with `values`. A template's lines:

    | line                                   | gives                                                       |
    |----------------------------------------|-------------------------------------------------------------|
    | `@# ...`                               | nothing (a note on the template)                            |
    | `@if x@`, `@if not x@`, `@else@`, `@endif@` | the lines between, where values[x] is true (or false)  |
    | `@for g@` ... `@endfor@`               | the lines between once per golden input, `@g@` its index   |
    | `@x@` alone                            | the lines of values[x]; none when it is empty               |
    | text with `@x@` in it                  | the text, each `@x@` replaced by values[x]                   |
    """
    path = templates_dir() / template
    nodes, _, _ = _parse_template(path.read_text().splitlines(keepends=True), 0, (), template)
    out: list[str] = []
    _expand(nodes, values, out)
    return "".join(out)


def matrix_literal(rows: list, indent: str) -> str:
    return "\n".join(indent + "{" + ", ".join(float_literal(v) for v in row) + "}," for row in rows)


def inputs_block(kind: str, name: str, inputs: list, length: int, width: int | None) -> str:
    """A constexpr array of ctattn inputs: std::array<int, n> for ids, ctattn::matrix<float, n, d> otherwise."""
    if kind == "ids":
        rows = ",\n".join("    {" + ", ".join(str(int(v)) for v in x.reshape(-1).tolist()) + "}" for x in inputs)
        return f"inline constexpr std::array<std::array<int, {length}>, {len(inputs)}> {name}{{{{\n{rows},\n}}}};\n"
    items = ["    {{\n" + matrix_literal(x.reshape(length, width).tolist(), "        ") + "\n    }}," for x in inputs]
    return (f"inline constexpr std::array<ctattn::matrix<float, {length}, {width}>, {len(inputs)}> {name}{{{{\n"
            + "\n".join(items) + "\n}};\n")


def outputs_block(name: str, outputs: list, length: int, width: int) -> str:
    items = ["    {\n" + matrix_literal(y.reshape(length, width).tolist(), "        ") + "\n    }," for y in outputs]
    return f"inline constexpr float {name}[{len(outputs)}][{length}][{width}] = {{\n" + "\n".join(items) + "\n};\n"


class Plan:
    """What export() writes: names of the files and of the C++ entities."""

    def __init__(self, out: str | Path, name: str, namespace: str):
        self.out = Path(out)
        self.name = name
        self.ns = namespace
        self.qualified = f"{namespace}::{name}" if namespace else name

    def file(self, suffix: str) -> Path:
        return self.out / f"{self.name}{suffix}"


# ---------------------------------------------------------------------------------------------------------------
# export(): the steps, in order.

# ctattn::weight_format, ctattn::activation_format and ctattn::softmax_method (ctattn::quantize_options), the
# defaults first.
WEIGHT_FORMATS = ("int8", "int4")
GRANULARITIES = ("per-channel", "per-tensor")
ACTIVATION_FORMATS = ("int8", "int16")
SOFTMAX_METHODS = ("rounded", "tflite")


def parse_layer_weights(specs, per_tensor: bool, activations: str = "int8") -> list[tuple[str, str, str, str]]:
    """--layer-weights PATH=FORMAT[:per-tensor|:per-channel][:int8|:int16], each as (path, weight_format,
    weight_granularity, activation_format); the granularity the model's (--per-tensor) and the activations the
    model's (--activations) where a spec names none."""
    parsed = []
    for spec in specs:
        path, equals, mode = spec.partition("=")
        fmt, *rest = mode.split(":")
        granularity = next((r for r in rest if r in GRANULARITIES), None)
        width = next((r for r in rest if r in ACTIVATION_FORMATS), None)
        known = len(rest) <= 2 and all(r in GRANULARITIES or r in ACTIVATION_FORMATS for r in rest) and \
            len(rest) == (granularity is not None) + (width is not None)
        if not equals or not path or fmt not in WEIGHT_FORMATS or not known:
            raise ExportError(f"--layer-weights {spec}: give PATH=FORMAT[:GRANULARITY][:ACTIVATIONS], the path a "
                              f"layer's (head, layers.0), the format " + " or ".join(WEIGHT_FORMATS) +
                              ", the granularity " + " or ".join(GRANULARITIES) + ", the activations " +
                              " or ".join(ACTIVATION_FORMATS))
        if any(path == seen[0] for seen in parsed):
            raise ExportError(f"--layer-weights {spec}: {path} is given twice")
        granularity = granularity or ("per-tensor" if per_tensor else "per-channel")
        width = width or activations
        if fmt == "int4" and width == "int16":
            raise ExportError(f"--layer-weights {spec}: 16x8 (int16 activations) takes int8 weights")
        parsed.append((path, fmt, granularity.replace("-", "_"), width))
    return parsed


def check_arguments(name: str, namespace: str, proof: str, tgt_mask: str, int8: bool, weight_format: str,
                    softmax: str, per_tensor: bool = False, layer_weights=(), activations: str = "int8") -> None:
    if weight_format not in WEIGHT_FORMATS:
        raise ExportError(f"--weight-format {weight_format}: give " + " or ".join(WEIGHT_FORMATS))
    if softmax not in SOFTMAX_METHODS:
        raise ExportError(f"--softmax {softmax}: give " + " or ".join(SOFTMAX_METHODS))
    if activations not in ACTIVATION_FORMATS:
        raise ExportError(f"--activations {activations}: give " + " or ".join(ACTIVATION_FORMATS))
    if not int8 and ((weight_format, softmax, activations) !=
                     (WEIGHT_FORMATS[0], SOFTMAX_METHODS[0], ACTIVATION_FORMATS[0]) or per_tensor or layer_weights):
        raise ExportError("--weight-format, --per-tensor, --activations, --layer-weights and --softmax choose how the "
                          "int8 model is formed: add --int8")
    if activations == "int16" and weight_format == "int4":
        raise ExportError("--activations int16 --weight-format int4: 16x8 (int16 activations) takes int8 weights; "
                          "give int4 weights with int8 activations, or int4 to some layers with --layer-weights")
    if activations == "int16" and proof == "chain":
        raise ExportError("--activations int16 --proof chain: a model with 16x8 layers is proved whole (its links "
                          "are int8 links); export with --proof whole")
    parse_layer_weights(layer_weights, per_tensor, activations)
    if proof not in ("auto", "whole", "chain"):
        raise ExportError(f"--proof {proof}: give auto, whole or chain")
    if tgt_mask not in ("causal", "none"):
        raise ExportError(f"--tgt-mask {tgt_mask}: give causal or none")
    if not name.isidentifier() or name in CPP_KEYWORDS:
        raise ExportError(f"--name {name}: not a C++ identifier")
    if namespace and not all(p.isidentifier() and p not in CPP_KEYWORDS for p in namespace.split("::")):
        raise ExportError(f"--namespace {namespace}: not a C++ namespace name")


def llama_renamed(module, state: dict) -> dict:
    """A file the tool wrote for a model laid out as transformers' LlamaForCausalLM holds its tensors under llama2.c's
    names (ctattn's); given back to such a module by --weights, they are renamed to the module's. Any other state is
    returned as it is."""
    own = dict(module.state_dict())
    if "tok_embeddings.weight" not in state or "tok_embeddings.weight" in own or "model.embed_tokens.weight" not in own:
        return state
    hf = LLAMA_LAYOUTS["transformers"]
    roles = {"wq": "q", "wk": "k", "wv": "v", "wo": "o", "w1": "w1", "w2": "w2", "w3": "w3"}
    renamed = {}
    for key, value in state.items():
        parts = key.split(".")
        if key in ("tok_embeddings.weight", "norm.weight", "output.weight"):
            key = {"tok_embeddings.weight": hf["embed"], "norm.weight": hf["norm"],
                   "output.weight": hf["output"]}[key] + ".weight"
        elif len(parts) == 5 and parts[0] == "layers" and parts[2] in ("attention", "feed_forward") \
                and parts[3] in roles:
            key = f"{hf['layers']}.{parts[1]}.{hf[parts[2]]}.{hf[roles[parts[3]]]}.weight"
        elif len(parts) == 4 and parts[0] == "layers" and parts[2] in ("attention_norm", "ffn_norm"):
            key = f"{hf['layers']}.{parts[1]}.{hf[parts[2]]}.weight"
        renamed[key] = value
    return renamed


def prepare_module(module, weights: str | Path | None):
    """The module in float and eval mode, with the weights loaded (a .safetensors or a torch.save file)."""
    torch, nn = torch_modules()
    module = module.float().eval()
    if isinstance(module, (nn.ModuleList, nn.MultiheadAttention)):
        raise ExportError(f"the model is an nn.{type(module).__name__}, which ctattn-export cannot call with one "
                          f"input; export the module that calls it")
    if weights is not None:
        state = (read_safetensors(weights) if str(weights).endswith(".safetensors")
                 else torch.load(weights, map_location="cpu"))
        state = llama_renamed(module, state)
        missing, unexpected = module.load_state_dict(state, strict=False)
        # A tied tensor (llama2.c's output.weight, the token embedding's) is in the file once: loaded under its other
        # name, it is not missing.
        params = dict(module.named_parameters(remove_duplicate=False) if "remove_duplicate" in
                      module.named_parameters.__code__.co_varnames else module.state_dict(keep_vars=True).items())
        loaded = {id(params[k]) for k in state if k in params}
        missing = [k for k in missing if not (k in params and id(params[k]) in loaded)]
        if missing or unexpected:
            raise ExportError(f"{weights}: does not fit the module: missing {list(missing)}, unexpected "
                              f"{list(unexpected)}")
    return module


def declare(module, name: str, input_shape: tuple, tgt_mask: str, causal=frozenset(), pools=None,
            norm_first=None) -> "Declarations":
    """The C++ declarations of the module; the top type named `name`."""
    _, nn = torch_modules()
    decl = Declarations(name, causal, pools, input_shape, norm_first, tgt_mask)
    llama = decl.llama(module)
    if llama is not None:
        decl.structs.append(f"using {name} = {llama};")
        return decl
    top_leaf = isinstance(module, (nn.Linear, nn.LayerNorm, nn.Embedding, nn.TransformerEncoderLayer,
                                   nn.TransformerDecoderLayer, nn.Sequential))
    if top_leaf:
        # Rationale: a single layer or a list of layers is already a ctattn model type; a struct around it
        # would add a member name to every parameter's.
        decl.structs.append(f"using {name} = {decl.type_of('', module, None, name)};")
    else:
        top = decl.type_of("", module, None, name)
        if top != name:  # a block (Declarations.block): a ctattn layer, not a struct of members
            decl.structs.append(f"using {name} = {top};")
    return decl


def check_model_kind(module, decl: "Declarations", tgt_mask: str, int8: bool) -> None:
    _, nn = torch_modules()
    if decl.decoder and not isinstance(module, (nn.TransformerDecoder, nn.TransformerDecoderLayer)):
        raise ExportError(f"decoder layers inside {type(module).__name__}: the export takes an "
                          f"nn.TransformerDecoder or nn.TransformerDecoderLayer as the whole model (target and memory "
                          f"in); export the decoder alone")
    if tgt_mask != "causal" and not decl.decoder:
        raise ExportError(f"--tgt-mask {tgt_mask}: the model has no decoder layers (the option sets their "
                          f"self-attention's mask)")
    if int8 and decl.quantizable:
        raise ExportError("--int8: " + "; ".join(decl.quantizable) + " (export the float model without --int8)")


def check_llama_int8(decl: "Declarations", activations: str, overrides: list) -> None:
    """The --int8 options a llama-style model cannot take: its int8 layers (ctattn/quantized/llama.hpp) have no 16x8
    form, and ctattn::quantize, which quantizes a llama_transformer as one layer, does not check that a per-layer
    override names one of its layers (a misspelt path would be ignored)."""
    if decl.llama_model is None:
        return
    if activations == "int16":
        raise ExportError("--activations int16: a llama-style model (ctattn::llama_transformer) has no 16x8 form: "
                          "ctattn's int8 llama layers take int8 activations only; export it with int8 activations "
                          "(the default)")
    if overrides:
        raise ExportError(f"--layer-weights {overrides[0][0]}: a llama-style model (ctattn::llama_transformer) is "
                          f"quantized with one weight format for all its layers, as ctattn::quantize does not check "
                          f"that an override names one of its layers; give the model's with --weight-format and "
                          f"--per-tensor")


class Inputs:
    """The model's inputs as PyTorch takes them (`shape`) and as the C++ model does (`length` rows of `width`
    columns, or `length` token ids): random ones from the export's generator, given ones checked, and the rows
    written to the generated headers."""

    def __init__(self, module, decl: "Declarations", input_shape: tuple, memory_shape: tuple | None, generator):
        torch, nn = torch_modules()
        self.shape = tuple(input_shape)
        self.memory_shape = tuple(memory_shape) if memory_shape is not None else None
        self.generator = generator
        self.patches = bool(decl.patches)
        self.decoder = decl.decoder
        self.vocabulary: int | None = None
        if decl.first == "ids":
            self.vocabulary = next(m for m in module.modules() if isinstance(m, nn.Embedding)).num_embeddings
            self.length = max(self.shape)
            if math.prod(self.shape) != self.length:
                raise ExportError(f"--input {self.shape}: one sequence of token ids (a batch of 1), such as "
                                  f"1x{self.length}")
            self.kind, self.width = "ids", None
        elif self.patches:
            # A patch embedding first: PyTorch's channels-first input; the C++ model takes the rows of positions or
            # pixels (row-major), the channels as columns.
            self.kind, self.width, self.length = "matrix", self.shape[1], math.prod(self.shape[2:])
        else:
            self.kind, self.width = "matrix", self.shape[-1]
            self.length = math.prod(self.shape) // self.width
            if sum(1 for d in self.shape[:-1] if d > 1) > 1:
                raise ExportError(f"--input {self.shape}: one sequence (a batch of 1), such as "
                                  f"1x{max(self.shape[:-1])}x{self.width}")
        self.memory_length: int | None = None
        if decl.decoder:
            if self.memory_shape is None:
                raise ExportError("the model has decoder layers: give the encoder memory's shape with --memory "
                                  "(such as 1x7x32)")
            self.memory_length = math.prod(self.memory_shape) // self.memory_shape[-1]

    def make(self, count: int) -> list:
        torch, _ = torch_modules()
        if self.kind == "ids":
            return [torch.randint(0, self.vocabulary, self.shape, generator=self.generator) for _ in range(count)]
        return [torch.randn(self.shape, generator=self.generator) for _ in range(count)]

    def make_memory(self):
        torch, _ = torch_modules()
        return torch.randn(self.memory_shape, generator=self.generator)

    def as_rows(self, x):
        """An input as the C++ model takes it: a patch embedding's channels as columns."""
        if self.patches:
            return x.reshape(self.shape).flatten(2).transpose(1, 2).reshape(self.length, self.width)
        return x

    @staticmethod
    def shaped(tensors, what: str, noun: str, target: tuple, flag: str) -> list:
        """The tensors given (one tensor, the items along dimension 0, or a sequence), each of `target`'s size."""
        torch, _ = torch_modules()
        items = list(tensors.unbind(0)) if isinstance(tensors, torch.Tensor) else list(tensors)
        out = []
        for i, t in enumerate(items):
            t = torch.as_tensor(t)
            if t.numel() != math.prod(target):
                raise ExportError(f"{what}: {noun} {i} has {t.numel()} elements, {flag} {tuple(target)} has "
                                  f"{math.prod(target)}")
            out.append(t.reshape(tuple(target)))
        return out

    def given(self, tensors, what: str) -> list:
        items = self.shaped(tensors, what, "input", self.shape, "--input")
        if not items:
            raise ExportError(f"{what}: no inputs")
        out = []
        for i, t in enumerate(items):
            if self.kind == "ids":
                if t.is_floating_point() or t.min() < 0 or t.max() >= self.vocabulary:
                    raise ExportError(f"{what}: input {i} holds something other than token ids "
                                      f"0..{self.vocabulary - 1}")
                out.append(t.long())
            else:
                out.append(t.float())
        return out

    def memories(self, tensors, count: int, what: str) -> list | None:
        """The memories of a decoder: given (one per input), or random."""
        if not self.decoder:
            if tensors is not None:
                raise ExportError(f"{what}: the model has no decoder layers, so it takes no memory")
            return None
        if tensors is None:
            return [self.make_memory() for _ in range(count)]
        items = self.shaped(tensors, what, "memory", self.memory_shape, "--memory")
        if len(items) != count:
            raise ExportError(f"{what}: {len(items)} memories for {count} inputs; give one per input")
        return [t.float() for t in items]

    def block(self, name: str, inputs: list) -> str:
        return inputs_block(self.kind, name, [self.as_rows(x) for x in inputs], self.length, self.width)

    def memories_block(self, name: str, memories: list | None) -> str:
        if memories is None:
            return ""
        return inputs_block("matrix", name, memories, self.memory_length, self.memory_shape[-1])


def forward_runner(module, decl: "Declarations", tgt_mask: str, length: int):
    """run(x, memory): the module's forward without gradients, with the causal tgt_mask for a causal decoder."""
    torch, nn = torch_modules()

    import inspect
    try:
        takes_targets = "targets" in inspect.signature(module.forward).parameters
    except (TypeError, ValueError):
        takes_targets = False

    def run(x, memory=None):
        with torch.no_grad():
            if decl.llama_model is not None:
                # Rationale: llama2.c's forward gives only the last position's logits unless it gets targets; given
                # them (the ids themselves: only the loss it computes beside reads them), every position's.
                y = module(x)
                if not isinstance(y, torch.Tensor) and isinstance(getattr(y, "logits", None), torch.Tensor):
                    y = y.logits  # transformers' CausalLMOutputWithPast
                if (isinstance(y, torch.Tensor) and y.dim() == 3 and y.shape[1] == 1 and x.shape[-1] > 1
                        and takes_targets):
                    y = module(x, targets=x)
                return y
            if decl.decoder and tgt_mask == "none":
                return module(x, memory)
            if decl.decoder:
                return module(x, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(length))
            return module(x)
    return run


def examine_forward(module, decl: "Declarations", redeclare, run, inputs: Inputs) -> "Declarations":
    """Runs the module's forward on an example input (and memory) with the checks that read it: branches on the
    data, the chains and pools, the causal masks, the blocks' norm order. The declarations again where they
    found something."""
    example = inputs.make(1)[0]
    example_memory = inputs.make_memory() if decl.decoder else None
    try:
        # Rationale: the branches first: a branch on the data is the cause of whatever else differs.
        check_control_flow(module, lambda x: run(x, example_memory), example)
        pools = check_chains(module, decl, lambda x: run(x, example_memory), example)
        causal = find_causal(module, lambda x: run(x, example_memory), example)
        norm_first = check_blocks(module, decl, lambda x: run(x, example_memory), example)
    except ExportError:
        raise
    except Exception as e:  # the module's own forward failed on the input
        raise ExportError(f"the module's forward fails on an input of shape {inputs.shape}"
                          f"{' and a memory of shape ' + str(inputs.memory_shape) if decl.decoder else ''}: "
                          f"{type(e).__name__}: {e}")
    if causal or pools or norm_first:
        return redeclare(frozenset(causal), pools, norm_first)
    return decl


def golden_outputs(run, decl: "Declarations", inputs: Inputs, golden_inputs: list, memories: list | None) -> list:
    """PyTorch's output on each golden input, as rows (one row when the model pools)."""
    outputs = []
    for g, x in enumerate(golden_inputs):
        y = run(x, memories[g] if decl.decoder else None)
        if isinstance(y, tuple):
            raise ExportError("the module's forward returns a tuple; export a module that returns one tensor")
        rows = 1 if decl.pooled else inputs.length
        if y.numel() % rows != 0:
            raise ExportError(f"the output's shape {tuple(y.shape)} is not one row per input position "
                              f"({inputs.length})")
        outputs.append(y.reshape(rows, -1))
    return outputs


def greedy_golden(run, decl: "Declarations", first, log, int8: bool = False) -> dict:
    """Greedy decoding of a llama-style model as llama2.c's generate does it at temperature 0: a prompt (the first
    golden input's first 3 ids), then each next id torch.argmax over the logits of the whole sequence so far, as
    many as fit the positions, up to 16. The C++ test feeds the prompt through `step` and checks that `greedy_token`
    picks the same ids (the int8 model's where PyTorch's margin exceeds twice its error). `margins`: each pick's gap between the two largest logits (the int8 test checks the int8 model's picks
    where the gap is larger than twice its error)."""
    torch, _ = torch_modules()
    ids = [int(v) for v in first.reshape(-1).tolist()]
    prompt = ids[:min(3, len(ids))]
    steps = min(16, decl.llama_model["positions"] - len(prompt))
    sequence, picked, margins = list(prompt), [], []
    for _ in range(steps):
        y = run(torch.tensor([sequence]))
        row = y.reshape(len(sequence), -1)[-1]
        top = torch.topk(row, 2).values
        margins.append(float(top[0] - top[1]))
        picked.append(int(torch.argmax(row)))
        sequence.append(picked[-1])
    log(f"ctattn-export: greedy decoding: {picked} after the prompt {prompt} (torch.argmax over the whole "
        f"sequence's logits; smallest gap between the two largest logits {min(margins, default=math.inf):.3g})")
    return {"prompt": prompt, "tokens": picked, "margins": margins}


def greedy_block(greedy: dict | None, int8: bool = False) -> str:
    """The greedy-decoding golden of a llama-style model: the prompt and the ids PyTorch picked after it; with
    `int8`, each pick's margin too."""
    if greedy is None:
        return ""
    prompt, tokens, margins = greedy["prompt"], greedy["tokens"], greedy["margins"]
    text = (f"/// Greedy decoding: the prompt, and the ids torch.argmax picked after it (each over the logits of the "
            f"whole sequence so far).\n"
            f"inline constexpr std::array<int, {len(prompt)}> prompt{{{', '.join(map(str, prompt))}}};\n"
            f"inline constexpr std::array<int, {len(tokens)}> greedy{{{', '.join(map(str, tokens))}}};\n")
    if int8:
        text += (f"/// Each pick's margin: PyTorch's largest logit minus its second.\n"
                 f"inline constexpr std::array<float, {len(margins)}> greedy_margins{{"
                 f"{', '.join(float_literal(m) for m in margins)}}};\n")
    return text


def proof_plan(module, decl: "Declarations", name: str, length: int, proof: str, int8: bool, log,
               int16: bool = False) -> tuple[bool, int]:
    """Whether the proof is a chain, and its links: one forward's multiply-adds are estimated (each parameter used
    once per token, and each attention's two n x n x d products over the n tokens) and compared with CHAIN_ABOVE
    under --proof auto. The tokens are the rows the layers see: the input's rows, or its patches, and the class
    tokens prepended."""
    parameters = sum(p.numel() for p in module.parameters())
    tokens = length // decl.patch_area + decl.class_tokens
    macs = parameters * tokens + sum(2 * tokens * tokens * d for d in decl.attention_widths)
    links = decl.links(name) if name in decl.link_counts else 0
    chained = proof == "chain" or (proof == "auto" and macs > CHAIN_ABOVE)
    if chained and decl.llama_model is not None:
        if proof == "chain":
            raise ExportError("--proof chain: a llama-style model (ctattn::llama_transformer) is proved whole (its "
                              "blocks are not links of a chain yet); export with --proof whole")
        chained = False
    if chained and int16:
        # Rationale: a 16x8 model's layers are not its int8 chain's links (conversions join the widths).
        if proof == "chain":
            raise ExportError("--proof chain: a model with 16x8 layers is proved whole; export with --proof whole")
        log("ctattn-export: a model with 16x8 layers is proved whole (its links are int8 links)")
        chained = False
    if chained and (links == 0 or decl.decoder):
        if proof == "chain":
            why = "a decoder takes its memory in every layer" if decl.decoder else "the model is one layer"
            raise ExportError(f"--proof chain: {why}, and a chain of proofs runs a model's members on the golden "
                              f"inputs alone; export with --proof whole")
        chained = False
    log(f"ctattn-export: about {macs / 1e6:.3g} M multiply-adds per forward: "
        + (f"proved as a chain of {links} links, each on each golden input in a translation unit of its own"
           + (" (float, and int8 from the recorded ranges)" if int8 else "")
           if chained else "proved whole, one static_assert per golden input"))
    return chained, links


def weights_values(state: dict) -> tuple[list[str], str, int]:
    """The state_dict's names, its values as exact literals six to a line, and their count."""
    names = list(state.keys())
    values = [float_literal(v) for t in state.values() for v in t.detach().float().reshape(-1).tolist()]
    lines = ["\n    " + " ".join(v + "," for v in values[i:i + 6]) for i in range(0, len(values), 6)]
    return names, "".join(lines), len(values)


def write_int8_files(plan: Plan, module, values: dict, inputs: Inputs, samples: dict, banner) -> None:
    """The int8 export's files: the calibration inputs, the recorder of their ranges and the int8 model type."""
    name = plan.name
    count = len(samples["inputs"])
    write_text(plan.file("_samples.hpp"), render("samples.hpp.in", {
        **values, "banner": banner(f"{name}_samples: {count} calibration inputs for the int8 ranges."),
        "inputs": inputs.block("inputs", samples["inputs"]),
        "memories": inputs.memories_block("memories", samples["memories"])}))
    write_text(plan.file("_record_ranges.cpp"), render("record_ranges.cpp.in", {
        **values, "samples": count,
        # Rationale: an encoder layer records 14 points, every other layer one; the count of modules bounds them.
        "ranges_capacity": 16 * (len(list(module.modules())) + 2),
        "banner": banner(f"{name}_record_ranges: runs the float {plan.qualified} over the calibration inputs and "
                         f"writes the range of every activation the int8 model quantizes (ctattn::record_ranges) "
                         f"to a header.  Usage: {name}_record_ranges <out.hpp>")}))
    write_text(plan.file("_int8.hpp"), render("int8.hpp.in", {
        **values, "banner": banner(f"{name}_int8: the int8 form of {plan.qualified}, quantized by the compiler "
                                   f"from the recorded ranges.")}))


def write_files(plan: Plan, module, decl: "Declarations", inputs: Inputs, golden: dict, samples: dict | None,
                options: dict) -> tuple[int, int]:
    """Writes every file of the export (the checks are done). Returns the counts of tensors and of parameters."""
    torch, _ = torch_modules()
    name, namespace, command = plan.name, plan.ns, options["command"]
    int8, chained, links = options["int8"], options["chained"], options["links"]
    values = {
        "name": name, "qualified": plan.qualified, "q": (namespace + "::") if namespace else "",
        "ns_open": f"namespace {namespace} {{\n\n" if namespace else "",
        "ns_close": f"\n}}  // namespace {namespace}" if namespace else "",
        "command": command, "decoder": decl.decoder, "llama": decl.llama_model is not None,
        "int8": int8, "chained": chained, "links": links,
        "golden": len(golden["inputs"]), "length": inputs.length,
        "last": f"{name}_after_{links - 1}", "int8_last": f"{name}_int8_after_{links - 1}",
        "int8_option": " INT8" if int8 else "",
        "weight_format": options["weight_format"], "softmax": options["softmax"],
        "granularity": "per_tensor" if options["per_tensor"] else "per_channel",
        "activations": options["activations"],
        "mode": "16x8" if options["activations"] == "int16" or any(
            width == "int16" for *_, width in options["layer_weights"]) else "int8",
        "layer_weights": ",\n".join(
            f'    {{"{path}", ctattn::weight_format::{fmt}, ctattn::weight_granularity::{granularity},\n'
            f'     ctattn::activation_format::{width}}}'
            for path, fmt, granularity, width in options["layer_weights"]),
    }

    def banner(what: str) -> str:
        return generated_banner(what, command)

    plan.out.mkdir(parents=True, exist_ok=True)
    # NAME.hpp: the model.
    write_text(plan.file(".hpp"), render("model.hpp.in", {
        **values, "structs": "\n\n".join(decl.structs),
        "banner": banner(f"{name}: the ctattn model of the PyTorch module {type(module).__name__}, its members named "
                         f"as the module's attributes (state_dict names)."),
        "input_noun": "token ids" if inputs.kind == "ids" else "rows",
        "input_type": (f"std::array<int, {inputs.length}>" if inputs.kind == "ids"
                       else f"ctattn::matrix<float, {inputs.length}, {inputs.width}>")}))

    # NAME.safetensors: the weights, the configuration in __metadata__; NAME_weights.hpp: the same as literals.
    state = decl.state(module)
    metadata = {"format": "pt", "producer": "ctattn-export"}
    metadata.update(decl.settings)
    write_safetensors(plan.file(".safetensors"), state, metadata)
    names, numbers, parameters = weights_values(state)
    write_text(plan.file("_weights.hpp"), render("weights.hpp.in", {
        **values, "banner": banner(f"{name}_weights: the parameters of a {plan.qualified}, exported from PyTorch."),
        "name_count": len(names), "names": "".join(f"    \"{n}\",\n" for n in names),
        "value_count": parameters, "numbers": numbers,
        "settings": "".join(f"  (void)ctattn::set_setting(m, \"{key}\", {float_literal(eps)});\n"
                            for key, eps in decl.eps.items())}))

    # NAME_golden.hpp.
    outputs = golden["outputs"]
    write_text(plan.file("_golden.hpp"), render("golden.hpp.in", {
        **values, "banner": banner(f"{name}_golden: {len(outputs)} inputs and PyTorch's float32 outputs for them "
                                   f"(torch {torch.__version__})."),
        "inputs": inputs.block("inputs", golden["inputs"]),
        "memories": inputs.memories_block("memories", golden["memories"]),
        "greedy": greedy_block(golden.get("greedy"), int8),
        "outputs": outputs_block("outputs", outputs, outputs[0].shape[0], outputs[0].shape[1])}))

    if int8:
        write_int8_files(plan, module, values, inputs, samples, banner)

    # NAME_test.cpp: the golden test; NAME_chain.cpp: the writer of the chain of proofs.
    write_text(plan.file("_test.cpp"), render("test.cpp.in", {
        **values, "out_length": outputs[0].shape[0], "out_width": outputs[0].shape[1],
        "tolerance": repr(options["tolerance"]), "int8_tolerance": repr(options["int8_tolerance"]),
        "banner": banner(f"{name}_test: PyTorch's outputs on {len(outputs)} golden inputs, checked at compile time "
                         f"(static_assert) and at run time; given the exported .safetensors file, the same weights "
                         f"loaded at run time (names, shapes and __metadata__ checked) and checked again.  Usage: "
                         f"{name}_test [{name}.safetensors]")}))
    if chained:
        write_text(plan.file("_chain.cpp"), render("chain.cpp.in", {
            **values, "banner": banner(f"{name}_chain: writes the chain of proofs of {plan.qualified} on the golden "
                                       f"inputs (ctattn::host::write_chain_proof): one translation unit per link and "
                                       f"input, each checking its link in static_assert.  Usage: {name}_chain "
                                       f"<directory> {links} {len(outputs)}")}))

    # CMakeLists.txt for a project with ctattn installed (or added with add_subdirectory before this one).
    write_text(plan.out / "CMakeLists.txt", render("CMakeLists.txt.in", values))
    return len(names), parameters


def export(module, out_dir: str | Path, name: str, input_shape: str | tuple, memory_shape: str | tuple | None = None,
           weights: str | Path | None = None, namespace: str = "", golden: int = 4, int8: bool = False,
           samples: int = 256, seed: int = 0, tolerance: float = 2e-5, int8_tolerance: float | None = None,
           weight_format: str = "int8", softmax: str = "rounded", per_tensor: bool = False, layer_weights=(),
           activations: str = "int8", check: bool = True, cxx: str | None = None, include_dirs=(), calibration=None, golden_inputs=None,
           calibration_memories=None, golden_memories=None, command: str = "ctattn-export", log=print,
           proof: str = "auto", tgt_mask: str = "causal") -> Plan:
    """Writes the C++ model, the weights, the golden test and (int8=True) the int8 ranges of `module`, then, with
    `check`, compiles and runs them. Returns the Plan (the files' names). Raises ExportError with the reason.

    The golden and calibration inputs are random (from `seed`: `golden` and `samples` of them) unless given:
    `golden_inputs` and `calibration` are sequences of tensors (or one tensor, the inputs along dimension 0), each
    of `input_shape`'s size; a decoder's `golden_memories` and `calibration_memories`, one per input, of
    `memory_shape`'s size.

    `tgt_mask`: a decoder's self-attention mask, "causal" (as a decoder generating tokens runs: the tool passes
    PyTorch's causal tgt_mask) or "none" (PyTorch's default: no tgt_mask, every target row seeing every other).

    `weight_format` ("int8" or "int4"), `per_tensor` (one weight scale per layer, TFLite Micro's only form for int4),
    `activations` ("int8", or "int16": TFLite's 16x8 mode for the layers that have it, proved whole) and `softmax`
    ("rounded" or "tflite"): how the int8 model is formed (ctattn::quantize_options); `layer_weights`, strings
    "PATH=FORMAT[:GRANULARITY][:ACTIVATIONS]" ("head=int8", "layers.0=int4:per-tensor", "head=int8:int8"), the layers
    whose weights or activations differ from the model's (ctattn::layer_weights; the granularity and the activations
    the model's where none is given), each path a submodule
    of `module` that is a layer of the ctattn model; `int8_tolerance` defaults to 0.125 of the spread of the golden outputs with int8
    weights and 0.25 with int4 (15 steps a weight rather than 255).

    `proof`: "whole" proves the forward in one static_assert per golden input; "chain" one link (a layer) per
    translation unit (ctattn/host/proof.hpp), for a model too large for one constant evaluation; "auto" chains a
    model of more than CHAIN_ABOVE estimated multiply-adds."""
    torch, _ = torch_modules()
    check_arguments(name, namespace, proof, tgt_mask, int8, weight_format, softmax, per_tensor, layer_weights,
                    activations)
    if int8_tolerance is None:
        int8_tolerance = 0.25 if weight_format == "int4" else 0.125
    if isinstance(input_shape, str):
        input_shape = parse_shape(input_shape)
    if isinstance(memory_shape, str):
        memory_shape = parse_shape(memory_shape)
    plan = Plan(out_dir, name, namespace)
    module = prepare_module(module, weights)
    overrides = parse_layer_weights(layer_weights, per_tensor, activations)
    submodules = dict(module.named_modules())
    for path, *_ in overrides:
        if path not in submodules:
            raise ExportError(f"--layer-weights {path}: the module has no submodule {path!r}; name a layer by its "
                              f"state_dict prefix (head, layers.0)")

    def redeclare(causal=frozenset(), pools=None, norm_first=None):
        return declare(module, name, input_shape, tgt_mask, causal, pools, norm_first)

    decl = redeclare()
    check_model_kind(module, decl, tgt_mask, int8)
    if int8:
        check_llama_int8(decl, activations, overrides)
    inputs = Inputs(module, decl, input_shape, memory_shape, torch.Generator().manual_seed(seed))
    if decl.llama_model is not None and inputs.length > decl.llama_model["positions"]:
        raise ExportError(f"--input {inputs.shape}: {inputs.length} token ids, more than the model's "
                          f"{decl.llama_model['positions']} positions (its rotary tables' rows)")
    run = forward_runner(module, decl, tgt_mask, inputs.length)
    decl = examine_forward(module, decl, redeclare, run, inputs)
    if inputs.kind == "matrix" and decl.first != inputs.width:
        raise ExportError(f"--input {inputs.shape}: the model's first layer takes {decl.first} features, the input "
                          f"gives {inputs.width}")

    # The inputs, in the generator's order: golden inputs, calibration inputs, then the memories of each.
    golden_set = {"inputs": inputs.given(golden_inputs, "golden inputs") if golden_inputs is not None
                  else inputs.make(golden)}
    sample_set = None
    if int8:
        sample_set = {"inputs": inputs.given(calibration, "calibration inputs") if calibration is not None
                      else inputs.make(samples)}
    golden_set["memories"] = inputs.memories(golden_memories, len(golden_set["inputs"]), "golden memories")
    if int8:
        sample_set["memories"] = inputs.memories(calibration_memories, len(sample_set["inputs"]),
                                                 "calibration memories")
    golden_set["outputs"] = golden_outputs(run, decl, inputs, golden_set["inputs"], golden_set["memories"])
    if decl.llama_model is not None:
        golden_set["greedy"] = greedy_golden(run, decl, golden_set["inputs"][0], log, int8)
    chained, links = proof_plan(module, decl, name, inputs.length, proof, int8, log,
                                any(width == "int16" for *_, width in overrides) or activations == "int16")

    # Every check is done: from here on the files are written.
    tensors, parameters = write_files(plan, module, decl, inputs, golden_set, sample_set, {
        "command": command, "int8": int8, "chained": chained, "links": links, "tolerance": tolerance,
        "int8_tolerance": int8_tolerance, "weight_format": weight_format, "softmax": softmax,
        "per_tensor": per_tensor, "layer_weights": overrides, "activations": activations})
    log(f"ctattn-export: wrote {plan.qualified} ({tensors} tensors, {parameters} parameters) to {plan.out}")
    if check:
        compile_and_run(plan, int8, cxx, include_dirs, log, (links, len(golden_set["inputs"])) if chained else None)
    elif int8:
        log(f"ctattn-export: --no-check: the generated CMakeLists.txt builds {name}_record_ranges and runs it to "
            f"write {name}_ranges.hpp")
    return plan


def ctattn_include() -> Path | None:
    """ctattn's headers beside the tool: the source tree's include/, or the installed prefix's include/."""
    # The source tree's tools/, the install's bin/, or the install's share/ctattn/python/ (the module).
    for candidate in (HERE.parent / "include", HERE.parent.parent / "include", HERE.parents[2] / "include"):
        if (candidate / "ctattn" / "layers.hpp").is_file():
            return candidate
    return None


def compile_and_run(plan: Plan, int8: bool, cxx: str | None, include_dirs, log,
                    chain: tuple[int, int] | None = None) -> None:
    """Builds and runs the recorder (int8) and the golden test; with `chain` (links, inputs), first writes the
    chain of proofs and compiles its units, as many at once as there are cores."""
    cxx = cxx or os.environ.get("CXX") or "c++"
    includes = [str(d) for d in include_dirs]
    found = ctattn_include()
    if found is not None:
        includes.append(str(found))
    # Rationale: the raised limits of ctattn's proofs (cmake/ctattn_proof.cmake): a large model's constexpr weights
    # (KWT-1's 611,107 parameters) alone take more than GCC's default 33 M operations to build.
    version = subprocess.run(shlex.split(cxx) + ["--version"], capture_output=True, text=True).stdout
    limit = "-fconstexpr-steps=2000000000" if "clang" in version else "-fconstexpr-ops-limit=4000000000"
    flags = ["-std=c++20", "-O1", limit, "-I", str(plan.out)] + [a for d in includes for a in ("-I", d)]

    def build(source, binary, extra=()):
        command = shlex.split(cxx) + flags + list(extra) + [str(source), "-o", str(binary)]
        log("ctattn-export: " + " ".join(shlex.quote(c) for c in command))
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            lines = result.stderr.splitlines()
            raise ExportError(f"{source.name} does not compile ({cxx}); the compiler's first lines:\n"
                              + "\n".join(lines[:30]))

    def execute(command, what):
        result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
        for line in result.stdout.splitlines():
            log("  " + line)
        if result.returncode != 0:
            raise ExportError(f"{what} failed (exit {result.returncode}):\n{result.stderr}")

    if int8:
        recorder = plan.out / f"{plan.name}_record_ranges"
        build(plan.file("_record_ranges.cpp"), recorder)
        execute([recorder, plan.file("_ranges.hpp")], f"{recorder.name}")
        log(f"ctattn-export: wrote {plan.file('_ranges.hpp').name}")
    proof_flags = []
    if chain is not None:
        links, inputs = chain
        writer = plan.out / f"{plan.name}_chain"
        # Rationale: the writer runs the links with exact arithmetic, whose bits are constant evaluation's only
        # without contraction into FMAs.
        build(plan.file("_chain.cpp"), writer, ["-ffp-contract=off"])
        proof_dir = plan.out / f"{plan.name}_proof"
        proof_dir.mkdir(exist_ok=True)
        execute([writer, proof_dir, links, inputs] + (["int8"] if int8 else []), writer.name)
        units = [proof_dir / f"{plan.name}_link_{k}_input_{g}.cpp" for k in range(links) for g in range(inputs)]
        if int8:
            units += [proof_dir / f"{plan.name}_int8_link_{k}_input_{g}.cpp" for k in range(links) for g in range(inputs)]
        log(f"ctattn-export: proving {plan.name}: {len(units)} units ({links} links x {inputs} golden inputs"
            f"{', float and int8' if int8 else ''}), {os.cpu_count() or 1} at a time")

        def prove(unit):
            command = shlex.split(cxx) + flags + ["-I", str(proof_dir), "-fsyntax-only", str(unit)]
            return unit, subprocess.run(command, capture_output=True, text=True)
        import concurrent.futures
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            for unit, result in pool.map(prove, units):
                if result.returncode != 0:
                    raise ExportError(f"{unit.name} does not compile ({cxx}): the chain of proofs fails at that link; "
                                      f"the compiler's first lines:\n" + "\n".join(result.stderr.splitlines()[:30]))
        log(f"ctattn-export: every link proved on every golden input ({plan.name}_proof/)")
        proof_flags = ["-I", str(proof_dir)]
    test = plan.out / f"{plan.name}_test"
    build(plan.file("_test.cpp"), test, proof_flags)
    execute([test, plan.file(".safetensors")], "the golden test")
    log(f"ctattn-export: {test.name} passed: the C++ model equals PyTorch's on the golden inputs, at compile time "
        f"and at run time")


# ---------------------------------------------------------------------------------------------------------------
# The command line.

def load_factory(spec: str):
    if ":" not in spec:
        raise ExportError(f"{spec}: give the module as file.py:Factory or package.module:Factory")
    where, attribute = spec.rsplit(":", 1)
    if where.endswith(".py"):
        path = Path(where).resolve()
        if not path.is_file():
            raise ExportError(f"{where}: no such file")
        sys.path.insert(0, str(path.parent))
        spec_ = importlib.util.spec_from_file_location(path.stem, path)
        source = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(source)
    else:
        source = importlib.import_module(where)
    factory = source
    for part in attribute.split("."):
        if not hasattr(factory, part):
            raise ExportError(f"{spec}: {where} has no '{attribute}'")
        factory = getattr(factory, part)
    module = factory()
    _, nn = torch_modules()
    if not isinstance(module, nn.Module):
        raise ExportError(f"{spec}: {attribute}() returned a {type(module).__name__}, not an nn.Module")
    return module


def load_inputs(path: str | None):
    if path is None:
        return None
    torch, _ = torch_modules()
    try:
        return torch.load(path, map_location="cpu")
    except Exception as e:
        raise ExportError(f"{path}: not a torch.save file of inputs ({type(e).__name__}: {e})")


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(p) for p in text.lower().split("x"))
    except ValueError:
        shape = ()
    if not shape or any(d <= 0 for d in shape):
        raise ExportError(f"{text}: a shape is sizes joined by 'x', as PyTorch's input has them (1x6, 1x5x32)")
    return shape


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ctattn-export", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="file.py:Factory or package.module:Factory (called with no arguments)")
    parser.add_argument("--name", required=True, help="the C++ model's name (and the files')")
    parser.add_argument("--out", required=True, help="the directory to write")
    parser.add_argument("--weights", help="a state_dict to load first (.safetensors, or a torch.save file)")
    parser.add_argument("--input", required=True, help="PyTorch's input shape for one sequence: 1x6 (token ids), "
                                                       "1x5x32 (rows)")
    parser.add_argument("--memory", help="the encoder memory's shape, for a decoder (1x7x32)")
    parser.add_argument("--tgt-mask", choices=("causal", "none"), default="causal",
                        help="a decoder's self-attention mask: causal (the default, as a decoder generating tokens "
                             "runs) or none (PyTorch's default when forward gets no tgt_mask)")
    parser.add_argument("--namespace", default="", help="the C++ namespace of the model")
    parser.add_argument("--golden", type=int, default=4, help="golden inputs (default 4)")
    parser.add_argument("--int8", action="store_true", help="record the int8 ranges and check the int8 model too")
    parser.add_argument("--samples", type=int, default=256, help="random calibration inputs for --int8 (256)")
    parser.add_argument("--calibration", help="calibration inputs for --int8 instead: a torch.save file of a tensor "
                                              "(the inputs along dimension 0) or a list of tensors")
    parser.add_argument("--golden-inputs", help="golden inputs instead of random ones, as --calibration")
    parser.add_argument("--calibration-memories", help="a decoder's memories for the calibration inputs, one per "
                                                       "input, as --calibration (default: random)")
    parser.add_argument("--golden-memories", help="a decoder's memories for the golden inputs, one per input, as "
                                                  "--calibration (default: random)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the golden and calibration inputs")
    parser.add_argument("--tolerance", type=float, default=2e-5,
                        help="largest |ctattn - PyTorch| / (1 + |PyTorch|) (default 2e-5)")
    parser.add_argument("--int8-tolerance", type=float, default=None,
                        help="largest |int8 - float| (ctattn::int8_error), as a fraction of the spread of PyTorch's "
                             "golden outputs (default 0.125; 0.25 with --weight-format int4)")
    parser.add_argument("--weight-format", choices=WEIGHT_FORMATS, default="int8",
                        help="with --int8: the linear layers' weights, int8 or int4 (two a byte, TFLite's layout)")
    parser.add_argument("--per-tensor", action="store_true",
                        help="with --int8: one weight scale per linear layer (TFLite Micro's only form for int4) "
                             "rather than one per output channel")
    parser.add_argument("--activations", choices=ACTIVATION_FORMATS, default="int8",
                        help="with --int8: the activations, int8 or int16 (TFLite's 16x8 mode: the layers with a "
                             "16x8 form in it, int8 weights)")
    parser.add_argument("--layer-weights", action="append", default=[],
                        metavar="PATH=FORMAT[:GRANULARITY][:ACTIVATIONS]",
                        help="with --int8: the weights (and activations) of one layer and the layers inside it other "
                             "than the model's, e.g. head=int8, layers.0=int4:per-tensor or head=int8:int8; repeat "
                             "for more layers")
    parser.add_argument("--softmax", choices=SOFTMAX_METHODS, default="rounded",
                        help="with --int8: the attention's softmax, ctattn's rounded one or TFLite's bits")
    parser.add_argument("--cxx", help="the C++ compiler for the check (default $CXX, or c++)")
    parser.add_argument("-I", dest="include", action="append", default=[], help="another include directory")
    parser.add_argument("--no-check", action="store_true", help="write the files only")
    parser.add_argument("--proof", choices=("auto", "whole", "chain"), default="auto",
                        help="prove the forward whole, or as a chain of links in units of their own (auto: chain "
                             f"above {CHAIN_ABOVE:,} multiply-adds)")
    args = parser.parse_args(argv)
    # Rationale: the generated files name the command without directories, so that they are the same on every machine.
    command = "ctattn-export " + " ".join(
        shlex.quote(os.path.basename(a) if os.path.sep in a and not a.startswith("-") else a)
        for a in (argv if argv is not None else sys.argv[1:]))
    try:
        torch_modules()  # before the module's file, which imports torch itself
        module = load_factory(args.module)
        export(module, args.out, args.name, parse_shape(args.input),
               memory_shape=parse_shape(args.memory) if args.memory else None, weights=args.weights,
               namespace=args.namespace, golden=args.golden, int8=args.int8, samples=args.samples, seed=args.seed,
               tolerance=args.tolerance, int8_tolerance=args.int8_tolerance, weight_format=args.weight_format,
               softmax=args.softmax, per_tensor=args.per_tensor, layer_weights=args.layer_weights,
               activations=args.activations,
               check=not args.no_check, cxx=args.cxx,
               include_dirs=args.include, command=command, calibration=load_inputs(args.calibration),
               golden_inputs=load_inputs(args.golden_inputs),
               calibration_memories=load_inputs(args.calibration_memories),
               golden_memories=load_inputs(args.golden_memories), proof=args.proof, tgt_mask=args.tgt_mask)
    except ExportError as e:
        print(f"ctattn-export: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
