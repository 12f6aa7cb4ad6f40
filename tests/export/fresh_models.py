# SPDX-License-Identifier: BSL-1.0
"""Fresh PyTorch models for the export tool's tests (tools/ctattn_export.py): built with a fixed seed, untrained;
each is what a user would write, and tests/export/CMakeLists.txt exports each in one command."""

import torch
from torch import nn


class EncoderWithHead(nn.Module):
    """A 2-layer nn.TransformerEncoder (post-norm, relu: PyTorch's defaults) with a Linear head."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(7)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        return self.head(self.encoder(x))


class PreNormEncoder(nn.Module):
    """Token ids, learned positions, a 2-layer pre-norm gelu nn.TransformerEncoder with its final LayerNorm, and a
    head of Linear, GELU, Linear in an nn.Sequential: the form the int8 tier quantizes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(11)
        self.tokens = nn.Embedding(20, 16)
        self.positions = nn.Embedding(8, 16)
        self.dropout = nn.Dropout(0.1)
        layer = nn.TransformerEncoderLayer(16, 2, 48, dropout=0.1, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16), enable_nested_tensor=False)
        self.head = nn.Sequential(nn.Linear(16, 24), nn.GELU(), nn.Linear(24, 20))

    def forward(self, ids):
        x = self.dropout(self.tokens(ids) + self.positions(torch.arange(ids.shape[1])))
        return self.head(self.encoder(x))


def decoder():
    """A 2-layer nn.TransformerDecoder (post-norm, gelu) with a final LayerNorm: target rows and the encoder's
    memory in, the causal mask on the target."""
    torch.manual_seed(5)
    layer = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, activation="gelu", batch_first=True)
    return nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(16))


class CausalAttention(nn.Module):
    """A decoder-only block written with nn.MultiheadAttention and PyTorch's causal mask, between two Linears."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.up = nn.Linear(6, 16)
        self.attention = nn.MultiheadAttention(16, 4, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.up(x)
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.head(self.attention(h, h, h, attn_mask=mask, need_weights=False)[0])


class TokensWithoutPositions(nn.Module):
    """Token ids without learned positions (a bag-of-tokens classifier), a pre-norm encoder layer and a Linear head:
    the token embedding alone in int8."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(13)
        self.tokens = nn.Embedding(12, 16)
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, ids):
        return self.head(self.layer(self.tokens(ids)))


def decoder_layer():
    """A single nn.TransformerDecoderLayer (pre-norm, relu) as the whole model: target rows and the memory in."""
    torch.manual_seed(17)
    return nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True, norm_first=True)


def norm_eps():
    """A LayerNorm with timm's and KWT's eps 1e-6 over rows of small spread (the Linear's weights scaled down), where
    PyTorch's default eps 1e-5 would give other outputs by far more than the golden test's tolerance."""
    torch.manual_seed(19)
    model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8, eps=1e-6), nn.Linear(8, 3))
    with torch.no_grad():
        model[0].weight.mul_(0.003)
        model[0].bias.mul_(0.003)
    return model
