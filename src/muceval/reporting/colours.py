"""matplotlib's colour maps as tables of ``#rrggbb`` (a report needs no matplotlib for its
colours; the tests check the tables against matplotlib's own), and each system's colour."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TAB10", "TAB20", "TURBO", "VIRIDIS", "pick", "system_colors"]


def _table(text: str) -> tuple[str, ...]:
    return tuple("#" + entry for entry in text.split())


def pick(table: tuple[str, ...], x: float) -> str:
    """The colour at ``x`` (0 to 1) of a map, as matplotlib picks it from a listed map.

    >>> pick(VIRIDIS, 0.0), pick(VIRIDIS, 1.0)
    ('#440154', '#fde725')
    """
    n = len(table)
    return table[min(n - 1, max(0, int(x * n)))]


def system_colors(names: Sequence[str]) -> dict[str, str]:
    """One distinct colour per system (tab10 up to 10 systems, tab20 up to 20, then turbo).

    >>> system_colors(["A", "B"])
    {'A': '#1f77b4', 'B': '#ff7f0e'}
    """
    if len(names) <= 10:
        return {name: pick(TAB10, i / 10 + 0.5 / 10) for i, name in enumerate(names)}
    if len(names) <= 20:
        return {name: pick(TAB20, i / 20 + 0.025) for i, name in enumerate(names)}
    return {name: pick(TURBO, i / max(1, len(names) - 1)) for i, name in enumerate(names)}

VIRIDIS = _table("""
440154 440256 450457 450559 46075a 46085c 460a5d 460b5e 470d60 470e61 471063 471164 471365
481467 481668 481769 48186a 481a6c 481b6d 481c6e 481d6f 481f70 482071 482173 482374 482475
482576 482677 482878 482979 472a7a 472c7a 472d7b 472e7c 472f7d 46307e 46327e 46337f 463480
453581 453781 453882 443983 443a83 443b84 433d84 433e85 423f85 424086 424186 414287 414487
404588 404688 3f4788 3f4889 3e4989 3e4a89 3e4c8a 3d4d8a 3d4e8a 3c4f8a 3c508b 3b518b 3b528b
3a538b 3a548c 39558c 39568c 38588c 38598c 375a8c 375b8d 365c8d 365d8d 355e8d 355f8d 34608d
34618d 33628d 33638d 32648e 32658e 31668e 31678e 31688e 30698e 306a8e 2f6b8e 2f6c8e 2e6d8e
2e6e8e 2e6f8e 2d708e 2d718e 2c718e 2c728e 2c738e 2b748e 2b758e 2a768e 2a778e 2a788e 29798e
297a8e 297b8e 287c8e 287d8e 277e8e 277f8e 27808e 26818e 26828e 26828e 25838e 25848e 25858e
24868e 24878e 23888e 23898e 238a8d 228b8d 228c8d 228d8d 218e8d 218f8d 21908d 21918c 20928c
20928c 20938c 1f948c 1f958b 1f968b 1f978b 1f988b 1f998a 1f9a8a 1e9b8a 1e9c89 1e9d89 1f9e89
1f9f88 1fa088 1fa188 1fa187 1fa287 20a386 20a486 21a585 21a685 22a785 22a884 23a983 24aa83
25ab82 25ac82 26ad81 27ad81 28ae80 29af7f 2ab07f 2cb17e 2db27d 2eb37c 2fb47c 31b57b 32b67a
34b679 35b779 37b878 38b977 3aba76 3bbb75 3dbc74 3fbc73 40bd72 42be71 44bf70 46c06f 48c16e
4ac16d 4cc26c 4ec36b 50c46a 52c569 54c568 56c667 58c765 5ac864 5cc863 5ec962 60ca60 63cb5f
65cb5e 67cc5c 69cd5b 6ccd5a 6ece58 70cf57 73d056 75d054 77d153 7ad151 7cd250 7fd34e 81d34d
84d44b 86d549 89d548 8bd646 8ed645 90d743 93d741 95d840 98d83e 9bd93c 9dd93b a0da39 a2da37
a5db36 a8db34 aadc32 addc30 b0dd2f b2dd2d b5de2b b8de29 bade28 bddf26 c0df25 c2df23 c5e021
c8e020 cae11f cde11d d0e11c d2e21b d5e21a d8e219 dae319 dde318 dfe318 e2e418 e5e419 e7e419
eae51a ece51b efe51c f1e51d f4e61e f6e620 f8e621 fbe723 fde725
""")
TURBO = _table("""
30123b 321543 33184a 341b51 351e58 36215f 372466 38276d 392a73 3a2d79 3b2f80 3c3286 3d358b
3e3891 3f3b97 3f3e9c 4040a2 4143a7 4146ac 4249b1 424bb5 434eba 4451bf 4454c3 4456c7 4559cb
455ccf 455ed3 4661d6 4664da 4666dd 4669e0 466be3 476ee6 4771e9 4773eb 4776ee 4778f0 477bf2
467df4 4680f6 4682f8 4685fa 4687fb 458afc 458cfd 448ffe 4391fe 4294ff 4196ff 4099ff 3e9bfe
3d9efe 3ba0fd 3aa3fc 38a5fb 37a8fa 35abf8 33adf7 31aff5 2fb2f4 2eb4f2 2cb7f0 2ab9ee 28bceb
27bee9 25c0e7 23c3e4 22c5e2 20c7df 1fc9dd 1ecbda 1ccdd8 1bd0d5 1ad2d2 1ad4d0 19d5cd 18d7ca
18d9c8 18dbc5 18ddc2 18dec0 18e0bd 19e2bb 19e3b9 1ae4b6 1ce6b4 1de7b2 1fe9af 20eaac 22ebaa
25eca7 27eea4 2aefa1 2cf09e 2ff19b 32f298 35f394 38f491 3cf58e 3ff68a 43f787 46f884 4af880
4ef97d 52fa7a 55fa76 59fb73 5dfc6f 61fc6c 65fd69 69fd66 6dfe62 71fe5f 75fe5c 79fe59 7dff56
80ff53 84ff51 88ff4e 8bff4b 8fff49 92ff47 96fe44 99fe42 9cfe40 9ffd3f a1fd3d a4fc3c a7fc3a
a9fb39 acfb38 affa37 b1f936 b4f836 b7f735 b9f635 bcf534 bef434 c1f334 c3f134 c6f034 c8ef34
cbed34 cdec34 d0ea34 d2e935 d4e735 d7e535 d9e436 dbe236 dde037 dfdf37 e1dd37 e3db38 e5d938
e7d739 e9d539 ebd339 ecd13a eecf3a efcd3a f1cb3a f2c93a f4c73a f5c53a f6c33a f7c13a f8be39
f9bc39 faba39 fbb838 fbb637 fcb336 fcb136 fdae35 fdac34 fea933 fea732 fea431 fea130 fe9e2f
fe9b2d fe992c fe962b fe932a fe9029 fd8d27 fd8a26 fc8725 fc8423 fb8122 fb7e21 fa7b1f f9781e
f9751d f8721c f76f1a f66c19 f56918 f46617 f36315 f26014 f15d13 f05b12 ef5811 ed5510 ec530f
eb500e ea4e0d e84b0c e7490c e5470b e4450a e2430a e14109 df3f08 dd3d08 dc3b07 da3907 d83706
d63506 d43305 d23105 d02f05 ce2d04 cc2b04 ca2a04 c82803 c52603 c32503 c12302 be2102 bc2002
b91e02 b71d02 b41b01 b21a01 af1801 ac1701 a91601 a71401 a41301 a11201 9e1001 9b0f01 980e01
950d01 920b01 8e0a01 8b0902 880802 850702 810602 7e0502 7a0403
""")
TAB10 = _table("""
1f77b4 ff7f0e 2ca02c d62728 9467bd 8c564b e377c2 7f7f7f bcbd22 17becf
""")
TAB20 = _table("""
1f77b4 aec7e8 ff7f0e ffbb78 2ca02c 98df8a d62728 ff9896 9467bd c5b0d5 8c564b c49c94 e377c2
f7b6d2 7f7f7f c7c7c7 bcbd22 dbdb8d 17becf 9edae5
""")
