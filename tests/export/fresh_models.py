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


class KeywordTransformer(nn.Module):
    """KWT as its reference builds it, at a small size: each MFCC frame embedded by a Linear, a learned class token
    put first, learned positions over every row (nn.Parameter), post-norm GELU encoder layers with eps 1e-6, the
    class token's row, a Linear head to the classes."""

    def __init__(self, frames=8, features=10, d=16, heads=2, hidden=32, depth=2, classes=5):
        super().__init__()
        torch.manual_seed(23)
        self.to_patch_embedding = nn.Linear(features, d)
        self.cls_token = nn.Parameter(torch.randn(1, 1, d))
        self.pos_embedding = nn.Parameter(torch.randn(1, frames + 1, d))
        layer = nn.TransformerEncoderLayer(d, heads, hidden, dropout=0.0, activation="gelu", batch_first=True,
                                           layer_norm_eps=1e-6)
        self.transformer = nn.TransformerEncoder(layer, depth)
        self.mlp_head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        x = x + self.pos_embedding[:, :x.shape[1]]
        x = self.transformer(x)
        return self.mlp_head(x[:, 0])


class MeanPooled(KeywordTransformer):
    """The same without a class token: positions over the frames, and the mean of the rows before the head."""

    def __init__(self):
        super().__init__()
        del self.cls_token
        self.pos_embedding = nn.Parameter(torch.randn(1, 8, 16))

    def forward(self, x):
        x = self.to_patch_embedding(x) + self.pos_embedding
        return self.mlp_head(self.transformer(x).mean(dim=1))


class TinyViT(nn.Module):
    """A small vision transformer written as timm's front end: 2 x 2 patches of an 8 x 8 image of 3 channels cut by
    patch_embed (nn.Conv2d with stride = kernel), a class token and positions, pre-norm GELU layers with eps 1e-6,
    a final norm, the class token's row, a Linear head."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(29)
        self.patch_embed = nn.Conv2d(3, 16, 2, stride=2)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 16) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, 17, 16) * 0.02)
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True, layer_norm_eps=1e-6)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(16, eps=1e-6)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        x = self.norm(self.blocks(x + self.pos_embed))
        return self.head(x[:, 0])


class AudioPatches(nn.Module):
    """A 1-d patch embedding (nn.Conv1d, kernel 2 = stride) over 8 frames of 10 features, positions, one post-norm
    layer, the mean of the rows, a Linear head."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(31)
        self.patches = nn.Conv1d(10, 16, 2, stride=2)
        self.positions = nn.Parameter(torch.randn(1, 4, 16))
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        x = self.patches(x).transpose(1, 2) + self.positions
        return self.head(self.layer(x).mean(dim=1))
