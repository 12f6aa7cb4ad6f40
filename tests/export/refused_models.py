# SPDX-License-Identifier: BSL-1.0
"""PyTorch modules the export tool must refuse, each with a message that names the module, the option and what to
do (tests/export/CMakeLists.txt checks the message)."""

import math

import torch
from torch import nn


class WithConvolution(nn.Module):
    """A convolution that is not a patch embedding (padding, stride 1)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.conv(x.transpose(1, 2)).transpose(1, 2))


class Residual(nn.Module):
    """A forward that is not a chain: the input added to the last layer's output."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.down = nn.Linear(16, 8)

    def forward(self, x):
        return x + self.down(self.act(self.up(x)))


class ScaledEmbedding(nn.Module):
    """Token embeddings scaled by sqrt(d) before the next layer: a computation between members."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, ids):
        return self.norm(self.embed(ids) * math.sqrt(8))


class OutOfOrder(nn.Module):
    """Members declared in another order than forward runs them."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 3)
        self.body = nn.Linear(8, 16)

    def forward(self, x):
        return self.head(self.body(x))


class SinusoidalPositions(nn.Module):
    """The tutorial's PositionalEncoding: a computed table held as a buffer."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.positions = PositionalEncoding(8, 16)

    def forward(self, ids):
        return self.positions(self.embed(ids))


class PositionalEncoding(nn.Module):
    def __init__(self, d, length):
        super().__init__()
        position = torch.arange(length).unsqueeze(1)
        angle = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe = torch.zeros(length, d)
        pe[:, 0::2] = torch.sin(position * angle)
        pe[:, 1::2] = torch.cos(position * angle)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.shape[1]]


class KeywordName(nn.Module):
    """An attribute named as a C++ keyword."""

    def __init__(self):
        super().__init__()
        self.new = nn.Linear(8, 8)

    def forward(self, x):
        return self.new(x)


class PaddedEncoder(nn.Module):
    """An encoder layer given a key padding mask in forward: neither no mask nor the causal one."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(4)
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

    def forward(self, x):
        padding = torch.zeros(x.shape[0], x.shape[1], dtype=torch.bool)
        padding[:, -1] = True
        return self.layer(x, src_key_padding_mask=padding)


def sequence_first():
    """PyTorch's default layout, (sequence, batch, features)."""
    return nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        return self.linear(x)


def sequential_of_blocks():
    """Modules of one's own inside an nn.Sequential."""
    return nn.Sequential(Block(), nn.Linear(8, 2))


class TokenTypes(nn.Module):
    """A second embedding fed the token ids (token types), not the positions."""

    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(10, 8)
        self.types = nn.Embedding(10, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, ids):
        return self.head(self.tokens(ids) + self.types(ids))


class InPlace(nn.Module):
    """A residual added in place after the last layer ran."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 8)
        self.down = nn.Linear(8, 8)

    def forward(self, x):
        y = self.down(self.up(x))
        y += x
        return y


class OwnScale(nn.Module):
    """A parameter of its own that is neither a class token nor learned positions."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 8)
        self.scale = nn.Parameter(torch.ones(8))

    def forward(self, x):
        return self.up(x) * self.scale


class LastTokenPool(nn.Module):
    """A pooling the export cannot see as one ctattn has: the last row, not the class token's."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x)[:, -1])


class WithBatchNorm(nn.Module):
    """A layer ctattn does not have."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 8)
        self.norm = nn.BatchNorm1d(4)

    def forward(self, x):
        return self.norm(self.up(x))


class DataDependentGate(nn.Module):
    """A Python `if` on the data: one Linear or the other, by the sign of the input's sum."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(47)
        self.up = nn.Linear(8, 8)
        self.down = nn.Linear(8, 8)

    def forward(self, x):
        if x.sum() > 0:
            return self.up(x)
        return self.down(x)


class NormedBranchBlock(nn.Module):
    """Torch-KWT's PostNorm: x + norm(f(x)), which is neither pre- nor post-norm as ctattn's encoder layer has them."""

    def __init__(self):
        super().__init__()
        from fresh_models import Mlp, SelfAttention
        torch.manual_seed(53)
        self.norm1 = nn.LayerNorm(8)
        self.attn = SelfAttention(8, 2)
        self.norm2 = nn.LayerNorm(8)
        self.mlp = Mlp(8, 16)

    def forward(self, x):
        x = x + self.norm1(self.attn(x))
        return x + self.norm2(self.mlp(x))


class LayerScale(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gamma = nn.Parameter(torch.full((dim,), 0.1))

    def forward(self, x):
        return x * self.gamma


def layer_scale_block():
    """A timm block with layer scale (ls1 holds a parameter ctattn's encoder layer has not)."""
    from fresh_models import TimmBlock
    block = TimmBlock(8, 2, 16)
    block.ls1 = LayerScale(8)
    return block


def torch_kwt_norm_after():
    """The Torch-KWT layout with its other wrapper: x + norm(fn(x)), which ctattn's encoder layer does not compute."""
    from fresh_models import NormAfter, TorchKwt
    return TorchKwt(wrapper=NormAfter, seed=71)


def llama_without_head_counts():
    """A llama2.c-style Transformer whose attention and blocks do not say how many heads split wq and wk."""
    from fresh_models import TinyLlama
    model = TinyLlama(head_counts_on_block=True)
    for block in model.layers:
        del block.n_heads, block.n_kv_heads
    return model


def hf_llama_without_config():
    """A LlamaForCausalLM-style model without its `config`: the positions (max_position_embeddings) are unknown."""
    from fresh_models import TinyHfLlama
    return TinyHfLlama(config=False)


def hf_llama_fractional_theta():
    """A LlamaForCausalLM-style model whose rope_theta is not an integer (ctattn's Base is)."""
    from fresh_models import TinyHfLlama
    return TinyHfLlama(rope_theta=10000.5)


def hf_llama_without_head_counts():
    """A LlamaForCausalLM-style model whose attention and config do not say how many heads split q_proj and k_proj."""
    from fresh_models import TinyHfLlama
    model = TinyHfLlama(counts_in_config_only=True)
    del model.config.num_attention_heads, model.config.num_key_value_heads
    return model
