# SPDX-License-Identifier: BSL-1.0
"""Fresh PyTorch models for the export tool's tests (tools/ctattn_export.py): built with a fixed seed, untrained;
each is what a user would write, and tests/export/CMakeLists.txt exports each in one command."""

import math

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


class SelfAttention(nn.Module):
    """Multi-head self-attention the way timm's vision transformers write it: one fused qkv Linear whose output
    columns are q, k, v with each head's columns together, the scores scaled by 1/sqrt(head width), a proj Linear."""

    def __init__(self, dim, num_heads, qkv_bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.attn_drop = nn.Dropout(0.0)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(0.0)

    def forward(self, x):
        batch, rows, width = x.shape
        q, k, v = self.qkv(x).reshape(batch, rows, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        weights = self.attn_drop(((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1))
        return self.proj_drop(self.proj((weights @ v).transpose(1, 2).reshape(batch, rows, width)))


class Mlp(nn.Module):
    """timm's feed-forward: fc1, the activation, fc2."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.0)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.fc1(x))))


class TimmBlock(nn.Module):
    """A transformer block with timm's names: norm1, attn, norm2, mlp; pre-norm residuals (timm's) unless
    post_norm (KWT's reference: each residual's sum normalized). ls1/ls2 and drop_path are identities, as in timm
    without layer scale and stochastic depth."""

    def __init__(self, dim, heads, hidden, eps=1e-6, qkv_bias=True, post_norm=False):
        super().__init__()
        self.post_norm = post_norm
        self.norm1 = nn.LayerNorm(dim, eps=eps)
        self.attn = SelfAttention(dim, heads, qkv_bias)
        self.ls1 = nn.Identity()
        self.drop_path = nn.Identity()
        self.norm2 = nn.LayerNorm(dim, eps=eps)
        self.mlp = Mlp(dim, hidden)
        self.ls2 = nn.Identity()

    def forward(self, x):
        if self.post_norm:
            x = self.norm1(x + self.drop_path(self.ls1(self.attn(x))))
            return self.norm2(x + self.drop_path(self.ls2(self.mlp(x))))
        x = x + self.drop_path(self.ls1(self.attn(self.norm1(x))))
        return x + self.drop_path(self.ls2(self.mlp(self.norm2(x))))


class PatchEmbed(nn.Module):
    """timm's patch embedding: a Conv2d with stride = kernel, its output as rows of patches."""

    def __init__(self, channels, dim, patch):
        super().__init__()
        self.proj = nn.Conv2d(channels, dim, patch, stride=patch)
        self.norm = nn.Identity()

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


class TimmViT(nn.Module):
    """A small vision transformer with timm's structure and state_dict names (patch_embed.proj, cls_token,
    pos_embed, blocks.N.{norm1, attn.qkv, attn.proj, norm2, mlp.fc1, mlp.fc2}, norm, head): 4 x 4 patches of a
    3 x 16 x 16 image, width 24, 3 heads, 2 pre-norm blocks, eps 1e-6, the class token's row to 10 classes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(37)
        self.patch_embed = PatchEmbed(3, 24, 4)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 24) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, 17, 24) * 0.02)
        self.pos_drop = nn.Dropout(0.0)
        self.blocks = nn.Sequential(*[TimmBlock(24, 3, 96) for _ in range(2)])
        self.norm = nn.LayerNorm(24, eps=1e-6)
        self.fc_norm = nn.Identity()
        self.head = nn.Linear(24, 10)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        x = self.norm(self.blocks(self.pos_drop(x + self.pos_embed)))
        return self.head(self.fc_norm(x[:, 0]))


class KeywordBlocks(nn.Module):
    """KWT as ARM's reference code builds it, written with timm-style blocks: MFCC frames embedded by a Linear, a
    class token, learned positions, post-norm blocks whose q, k, v projections have no bias, eps 1e-6, GELU, the
    class token's row to the classes. 12 frames of 10 features, width 16, 2 heads, 2 blocks, 6 classes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(41)
        self.to_patch_embedding = nn.Linear(10, 16)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 16))
        self.pos_embedding = nn.Parameter(torch.randn(1, 13, 16))
        self.blocks = nn.ModuleList([TimmBlock(16, 2, 64, qkv_bias=False, post_norm=True) for _ in range(2)])
        self.mlp_head = nn.Linear(16, 6)

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
        for block in self.blocks:
            x = block(x)
        return self.mlp_head(x[:, 0])


def timm_block():
    """One block alone, as the whole model."""
    torch.manual_seed(43)
    return TimmBlock(16, 4, 32, eps=1e-5)


class KeywordTransformer1(nn.Module):
    """KWT-1 at its full size, as ARM's reference builds it, written with nn.TransformerEncoderLayer: 98 MFCC frames
    of 40, a Linear(40, 64) per frame, a class token, positions over 99 rows, 12 post-norm GELU layers (1 head, MLP
    256, eps 1e-6), the class token's row, 35 classes: 607K parameters, about 76 M multiply-adds (the export proves
    it as a chain of 17 links)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(59)
        self.to_patch_embedding = nn.Linear(40, 64)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 64))
        self.pos_embedding = nn.Parameter(torch.randn(1, 99, 64))
        layer = nn.TransformerEncoderLayer(64, 1, 256, dropout=0.0, activation="gelu", batch_first=True,
                                           layer_norm_eps=1e-6)
        self.transformer = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
        self.mlp_head = nn.Linear(64, 35)

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
        return self.mlp_head(self.transformer(x)[:, 0])


# KWT as the PyTorch port most users train (Torch-KWT) lays it out: each layer a pair in a ModuleList, a wrapper
# `PreNorm(dim, fn)` holding `norm` and `fn` around the attention and around the feed-forward block, the attention a
# fused bias-free `to_qkv` with `heads` and `scale`, its output projection `to_out` (a Sequential of a Linear and a
# Dropout, or Identity when one head spans the width), the feed-forward `net` (Linear, GELU, Dropout, Linear,
# Dropout), the head `mlp_head` a Sequential of a LayerNorm and a Linear. Written without einops (the patch
# embedding is the Linear on frames: --input frames x features).
class NormFirst(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class NormAfter(nn.Module):
    """The other wrapper of that layout: norm(fn(x)), inside the residual (x + norm(fn(x)))."""

    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.norm(self.fn(x))


class HeadsAttention(nn.Module):
    def __init__(self, dim, heads, dim_head):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.attend = nn.Softmax(dim=-1)
        self.to_qkv = nn.Linear(dim, 3 * inner, bias=False)
        self.to_out = (nn.Sequential(nn.Linear(inner, dim), nn.Dropout(0.0)) if heads != 1 or dim_head != dim
                       else nn.Identity())

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in self.to_qkv(x).chunk(3, dim=-1))
        weights = self.attend(torch.matmul(q, k.transpose(-1, -2)) * self.scale)
        out = torch.matmul(weights, v).transpose(1, 2).reshape(b, n, -1)
        return self.to_out(out)


class FeedForwardNet(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(0.0), nn.Linear(hidden, dim),
                                 nn.Dropout(0.0))

    def forward(self, x):
        return self.net(x)


class PairedTransformer(nn.Module):
    def __init__(self, dim, depth, heads, dim_head, hidden, wrapper=NormFirst):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([wrapper(dim, HeadsAttention(dim, heads, dim_head)),
                                                    wrapper(dim, FeedForwardNet(dim, hidden))])
                                     for _ in range(depth)])

    def forward(self, x):
        for attend, feed in self.layers:
            x = attend(x) + x
            x = feed(x) + x
        return x


class TorchKwt(nn.Module):
    """12 frames of 10 features, width 16, 2 heads of 8, 2 layers, MLP 32, 5 classes, the class token's row."""

    def __init__(self, heads=2, dim_head=8, wrapper=NormFirst, seed=61):
        super().__init__()
        torch.manual_seed(seed)
        self.to_patch_embedding = nn.Linear(10, 16)
        self.pos_embedding = nn.Parameter(torch.randn(1, 13, 16))
        self.cls_token = nn.Parameter(torch.randn(1, 1, 16))
        self.dropout = nn.Dropout(0.0)
        self.transformer = PairedTransformer(16, 2, heads, dim_head, 32, wrapper)
        self.to_latent = nn.Identity()
        self.mlp_head = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 5))

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = x + self.pos_embedding[:, :x.shape[1]]
        x = self.transformer(self.dropout(x))
        return self.mlp_head(self.to_latent(x[:, 0]))


def torch_kwt_one_head():
    """KWT-1's attention shape: one head as wide as the model, so no output projection (to_out is Identity)."""
    return TorchKwt(heads=1, dim_head=16, seed=67)


# A llama-style language model laid out as llama2.c's model.py lays its Transformer out (the names Meta's reference and
# llama2.c's checkpoints have), written here from the equations: RMSNorm, rotary positions on interleaved pairs,
# grouped-query causal attention, SwiGLU, pre-norm residual blocks.

class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x^2) + eps) * weight, over the last dimension."""

    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_pairs(x, cos, sin):
    """x: (batch, n, heads, head_dim); columns (2p, 2p+1) of each head rotated by the angle of (position, p)."""
    even, odd = x[..., 0::2], x[..., 1::2]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.stack((even * c - odd * s, even * s + odd * c), dim=-1).flatten(-2)


class LlamaAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, head_counts_on_block=False):
        super().__init__()
        if not head_counts_on_block:  # llama2.c's Attention holds them; the other variant leaves them to its block
            self.n_local_heads, self.n_local_kv_heads = n_heads, n_kv_heads
        self.heads, self.kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin):
        b, n, _ = x.shape
        q = rotate_pairs(self.wq(x).view(b, n, self.heads, self.head_dim), cos, sin)
        k = rotate_pairs(self.wk(x).view(b, n, self.kv_heads, self.head_dim), cos, sin)
        v = self.wv(x).view(b, n, self.kv_heads, self.head_dim)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=2), v.repeat_interleave(group, dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # batch, heads, n, head_dim
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        scores = scores + torch.full((n, n), float("-inf")).triu(1)
        out = torch.softmax(scores, dim=-1) @ v
        return self.wo(out.transpose(1, 2).reshape(b, n, -1))


class SwiGlu(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(nn.functional.silu(self.w1(x)) * self.w3(x))


class LlamaBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden, eps, head_counts_on_block=False):
        super().__init__()
        if head_counts_on_block:
            self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.attention = LlamaAttention(dim, n_heads, n_kv_heads, head_counts_on_block)
        self.feed_forward = SwiGlu(dim, hidden)
        self.attention_norm = RMSNorm(dim, eps)
        self.ffn_norm = RMSNorm(dim, eps)

    def forward(self, x, cos, sin):
        h = x + self.attention(self.attention_norm(x), cos, sin)
        return h + self.feed_forward(self.ffn_norm(h))


class TinyLlama(nn.Module):
    """llama2.c's Transformer at a small size: dim 16, 2 layers, 4 heads over 2 key/value heads, hidden 24, a
    vocabulary of 32, 20 positions (a prompt of 3 and 16 greedy ids), RMSNorm eps 1e-5, the head tied to the token embedding (llama2.c's default);
    other sizes through the keyword arguments (benchmarks/llama_speed_torch.py: stories260K's).
    Its forward takes ids of shape [1, n] and gives every position's logits, [1, n, 32]."""

    def __init__(self, tied=True, seed=71, head_counts_on_block=False, dim=16, layers=2, heads=4, kv_heads=2,
                 hidden=24, vocab=32, positions=20):
        super().__init__()
        torch.manual_seed(seed)
        eps = 1e-5
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(LlamaBlock(dim, heads, kv_heads, hidden, eps, head_counts_on_block)
                                    for _ in range(layers))
        self.norm = RMSNorm(dim, eps)
        self.output = nn.Linear(dim, vocab, bias=False)
        if tied:
            self.tok_embeddings.weight = self.output.weight
        with torch.no_grad():  # norms other than ones, so that a norm computed wrong shows
            for name, p in self.named_parameters():
                if name.endswith("norm.weight"):
                    p.copy_(1 + 0.3 * torch.randn(dim))
        # The rotary tables, cos and sin of t / 10000^(2p / head_dim), computed in float32; buffers, not parameters.
        head_dim = dim // heads
        angles = torch.outer(torch.arange(positions).float(),
                             1.0 / 10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("freqs_cos", torch.cos(angles), persistent=False)
        self.register_buffer("freqs_sin", torch.sin(angles), persistent=False)

    def forward(self, ids):
        n = ids.shape[1]
        x = self.tok_embeddings(ids)
        cos, sin = self.freqs_cos[:n], self.freqs_sin[:n]
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.output(self.norm(x))


def tiny_llama_untied():
    """The same with an output head of its own, and the head counts held by the blocks (n_heads, n_kv_heads)."""
    return TinyLlama(tied=False, seed=73, head_counts_on_block=True)


# The same kind of model laid out as Hugging Face's transformers lays out LlamaForCausalLM (model.embed_tokens,
# model.layers of self_attn and mlp, model.norm, lm_head, a config), written here from its equations since transformers
# is not a dependency: rotary positions on rotate_half's pairs (p, p + head_dim / 2), base config.rope_theta.

class HfConfig:
    """The few fields of transformers' LlamaConfig the model and the export read."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


class HfRMSNorm(nn.Module):
    """transformers' LlamaRMSNorm: the same formula, its epsilon named variance_epsilon."""

    def __init__(self, dim, eps):
        super().__init__()
        self.variance_epsilon = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))


class HfRotaryEmbedding(nn.Module):
    def __init__(self, head_dim, base):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, n):
        freqs = torch.outer(torch.arange(n).float(), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class HfAttention(nn.Module):
    def __init__(self, config, counts_in_config_only=False):
        super().__init__()
        self.config = config
        self.head_dim = config.hidden_size // config.num_attention_heads
        if not counts_in_config_only:  # older transformers keep them on the attention; newer read the config
            self.num_heads, self.num_key_value_heads = config.num_attention_heads, config.num_key_value_heads
        heads, kv, d = config.num_attention_heads, config.num_key_value_heads, config.hidden_size
        self.q_proj = nn.Linear(d, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d, kv * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, d, bias=False)

    def forward(self, x, cos, sin):
        b, n, _ = x.shape
        heads, kv = self.config.num_attention_heads, self.config.num_key_value_heads
        q = self.q_proj(x).view(b, n, heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, n, kv, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, n, kv, self.head_dim).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(heads // kv, dim=1), v.repeat_interleave(heads // kv, dim=1)  # repeat_kv
        scores = q @ k.transpose(-2, -1) * self.head_dim ** -0.5
        scores = scores + torch.full((n, n), float("-inf")).triu(1)
        out = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, n, -1))


class HfMlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class HfDecoderLayer(nn.Module):
    def __init__(self, config, counts_in_config_only):
        super().__init__()
        self.self_attn = HfAttention(config, counts_in_config_only)
        self.mlp = HfMlp(config.hidden_size, config.intermediate_size)
        self.input_layernorm = HfRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = HfRMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin):
        h = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return h + self.mlp(self.post_attention_layernorm(h))


class HfLlamaModel(nn.Module):
    def __init__(self, config, counts_in_config_only):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(HfDecoderLayer(config, counts_in_config_only)
                                    for _ in range(config.num_hidden_layers))
        self.norm = HfRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = HfRotaryEmbedding(config.hidden_size // config.num_attention_heads,
                                            getattr(config, "rope_theta", 10000.0))

    def forward(self, ids):
        x = self.embed_tokens(ids)
        cos, sin = self.rotary_emb(ids.shape[1])
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.norm(x)


class CausalLmOutput:
    """What transformers' forward returns: an object holding the logits."""

    def __init__(self, logits):
        self.logits = logits


class TinyHfLlama(nn.Module):
    """LlamaForCausalLM's layout at TinyLlama's size: hidden_size 16, 2 layers, 4 heads over 2 key/value heads,
    intermediate 24, a vocabulary of 32, 20 positions, rms_norm_eps 1e-5, rope_theta 10000, lm_head tied to the
    embedding (tie_word_embeddings). Its forward takes ids [1, n] and returns an object whose .logits are [1, n, 32]
    (as transformers' does) unless `plain`, then the logits themselves."""

    def __init__(self, tied=True, seed=107, counts_in_config_only=False, rope_theta=10000.0, plain=False,
                 config=True, embedding_std=0.1, rms_norm_eps=1e-5):
        super().__init__()
        torch.manual_seed(seed)
        cfg = HfConfig(vocab_size=32, hidden_size=16, intermediate_size=24, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=20,
                       rms_norm_eps=rms_norm_eps, rope_theta=rope_theta, tie_word_embeddings=tied)
        self.model = HfLlamaModel(cfg, counts_in_config_only)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        if tied:
            self.lm_head.weight = self.model.embed_tokens.weight
        if config:
            self.config = cfg
        self.plain = plain
        with torch.no_grad():
            # transformers draws the embedding from N(0, initializer_range); a spread near the Linears' keeps a tied
            # head from repeating the last id whatever the blocks compute (nn.Embedding's N(0, 1) would swamp them).
            self.model.embed_tokens.weight.normal_(0, embedding_std)
            for name, p in self.named_parameters():  # norms other than ones, so that a norm computed wrong shows
                if name.endswith("norm.weight"):
                    p.copy_(1 + 0.3 * torch.randn(cfg.hidden_size))

    def forward(self, ids):
        logits = self.lm_head(self.model(ids))
        return logits if self.plain else CausalLmOutput(logits)


def tiny_hf_llama_untied():
    """The same with an lm_head of its own, the head counts only in the config (as newer transformers' attention
    has them), rope_theta 500000 (Llama 3's), rms_norm_eps 1e-6 (not the C++ default, so that it must be set), and a
    forward that returns the logits tensor."""
    return TinyHfLlama(tied=False, seed=97, counts_in_config_only=True, rope_theta=500000.0, plain=True,
                       rms_norm_eps=1e-6)
