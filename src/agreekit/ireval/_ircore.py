"""Compiled passes of :func:`agreekit.ireval.evaluate`: TREC lines read from bytes, ids hashed
as bytes, each run ranked and joined to the qrels topic by topic, and the common metrics of
every topic in one pass.

Ids are never turned into Python strings here (only the distinct topic ids are): an id is a
slice ``buf[start:end]`` of a byte buffer (a file's bytes, or ids joined by NUL and encoded
as UTF-8, whose byte order is the code point order of the strings).  Two ids are equal if and
only if their bytes are equal.  Every function returns a status instead of raising: the
caller sends anything unusual to the careful line reader, which names the line at fault.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: 10**k for k = 0..22, each exactly representable as a float64
_POW10 = np.array([10.0**k for k in range(23)])
_NO_GRADE = np.iinfo(np.int64).min
#: FNV-1a's offset and prime; hashes are kept to 62 bits, so that the arithmetic is the same in
#: int64 (compiled, wrapping) and in Python's integers (interpreted, see :mod:`agreekit._jit`)
_FNV_OFFSET = 14695981039346656037 & 0x3FFFFFFFFFFFFFFF
_FNV_PRIME = 1099511628211
_LOW62 = 0x3FFFFFFFFFFFFFFF


# --------------------------------------------------------------------------- reading
@njit(cache=True)
def _parse_int(buf, s, e):
    """(ok, value) of an ASCII integer ``[+-]?[0-9]{1,18}`` (larger ones: not ok)."""
    i = s
    neg = False
    if i < e and (buf[i] == 43 or buf[i] == 45):
        neg = buf[i] == 45
        i += 1
    if i >= e or e - i > 18:
        return False, 0
    v = 0
    while i < e:
        c = int(buf[i])
        if c < 48 or c > 57:
            return False, 0
        v = v * 10 + (c - 48)
        i += 1
    return True, -v if neg else v


@njit(cache=True)
def _parse_float(buf, s, e, pow10):
    """(status, value) of an ASCII decimal number ``[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?``.

    status 0: parsed, correctly rounded (a mantissa below 2**53 times or divided by an exact
    power of ten below 10**23: one IEEE operation on exact operands, as in Clinger 1990);
    1: a number whose correctly rounded value needs a full parser (the caller uses ``float``);
    2: not a number of that form."""
    i = s
    neg = False
    if i < e and (buf[i] == 43 or buf[i] == 45):
        neg = buf[i] == 45
        i += 1
    w = 0
    nd = 0  # significant digits kept in w
    big = False  # more than 19 significant digits
    scale = 0  # power of ten of w's last digit
    n_int = 0
    while i < e and 48 <= buf[i] <= 57:
        c = int(buf[i]) - 48
        if nd > 0 or c > 0:
            if nd < 19:
                w = w * 10 + c
                nd += 1
            else:
                big = True
                scale += 1
        n_int += 1
        i += 1
    n_frac = 0
    if i < e and buf[i] == 46:
        i += 1
        while i < e and 48 <= buf[i] <= 57:
            c = int(buf[i]) - 48
            if nd > 0 or c > 0:
                if nd < 19:
                    w = w * 10 + c
                    nd += 1
                    scale -= 1
                else:
                    big = True
            else:
                scale -= 1
            n_frac += 1
            i += 1
    if n_int == 0 and n_frac == 0:
        return 2, 0.0
    if i < e and (buf[i] == 101 or buf[i] == 69):
        i += 1
        eneg = False
        if i < e and (buf[i] == 43 or buf[i] == 45):
            eneg = buf[i] == 45
            i += 1
        if i >= e:
            return 2, 0.0
        ex = 0
        n_ex = 0
        while i < e and 48 <= buf[i] <= 57:
            if n_ex < 6:
                ex = ex * 10 + (int(buf[i]) - 48)
            n_ex += 1
            i += 1
        if n_ex > 6:
            big = True
        scale += -ex if eneg else ex
    if i != e:
        return 2, 0.0
    if w == 0 and not big:
        return 0, -0.0 if neg else 0.0
    if big or w > 9007199254740992 or scale > 22 or scale < -22:
        return 1, 0.0
    v = float(w)
    if scale >= 0:
        v = v * pow10[scale]
    else:
        v = v / pow10[-scale]
    return 0, -v if neg else v


@njit(cache=True)
def scan_trec(buf, n_fields, value_field, is_float, tag_field, max_line, pow10):
    """The fields of a TREC file's lines from its bytes, in one pass.

    Lines end with ``\\n``; fields are separated by spaces and tabs; blank lines and lines whose
    first non-blank byte is ``#`` are skipped (as the careful reader does).  Returns ``(status,
    n, topic_start, topic_end, doc_start, doc_end, ivalue, fvalue, hard)``: fields 0 and 2 as
    slices, the ``value_field`` parsed (an integer grade, or a float score; ``hard`` lists the
    rows whose score needs Python's ``float``: row, start, end).  status 0: read; 1: something the careful
    reader must see (a byte outside printable ASCII, space, tab and newline, other than the
    control bytes str.split keeps in an id; another field count; a value not of its form; a
    second run tag; a line longer than ``max_line``; no line at all)."""
    size = buf.size
    n_lines = 1
    for k in range(size):
        if buf[k] == 10:
            n_lines += 1
    ts = np.empty(n_lines, np.int64)
    te = np.empty(n_lines, np.int64)
    ds = np.empty(n_lines, np.int64)
    de = np.empty(n_lines, np.int64)
    iv = np.zeros(n_lines if not is_float else 0, np.int64)
    fv = np.zeros(n_lines if is_float else 0, np.float64)
    hard = np.empty((n_lines if is_float else 0, 3), np.int64)
    n_hard = 0
    fs = np.empty(n_fields, np.int64)
    fe = np.empty(n_fields, np.int64)
    tag_s = -1
    tag_e = -1
    n = 0
    pos = 0
    while pos < size:
        line_start = pos
        nf = 0
        in_field = False
        comment = False
        while pos < size:
            c = buf[pos]
            if c == 10:
                break
            if c == 32 or c == 9:
                if in_field:
                    if nf <= n_fields:
                        fe[nf - 1] = pos
                    in_field = False
            elif c == 0 or c == 13 or c == 11 or c == 12 or (28 <= c <= 31) or c >= 128:
                return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
            elif not in_field:
                if nf == 0 and c == 35:
                    comment = True
                in_field = True
                nf += 1
                if nf <= n_fields:
                    fs[nf - 1] = pos
            pos += 1
        if in_field and nf <= n_fields:
            fe[nf - 1] = pos
        if pos - line_start + 1 > max_line:
            return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
        pos += 1  # the newline
        if nf == 0 or comment:
            continue
        if nf != n_fields:
            return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
        ts[n] = fs[0]
        te[n] = fe[0]
        ds[n] = fs[2]
        de[n] = fe[2]
        if is_float:
            st, v = _parse_float(buf, fs[value_field], fe[value_field], pow10)
            if st == 2:
                return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
            if st == 1:
                hard[n_hard, 0] = n
                hard[n_hard, 1] = fs[value_field]
                hard[n_hard, 2] = fe[value_field]
                n_hard += 1
            fv[n] = v
        else:
            ok, g = _parse_int(buf, fs[value_field], fe[value_field])
            if not ok:
                return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
            iv[n] = g
        if tag_field >= 0:
            s, e = fs[tag_field], fe[tag_field]
            if tag_s < 0:
                tag_s, tag_e = s, e
            elif not _same(buf, s, e, buf, tag_s, tag_e):
                return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
        n += 1
    if n == 0:
        return 1, 0, ts, te, ds, de, iv, fv, hard[:0]
    return (
        0,
        n,
        ts[:n],
        te[:n],
        ds[:n],
        de[:n],
        iv[:n] if not is_float else iv,
        fv[:n] if is_float else fv,
        hard[:n_hard],
    )


@njit(cache=True)
def split_joined(buf, n):
    """(ok, start, end) of the ``n`` ids of ``"\\x00".join(ids)`` encoded; not ok if the buffer
    holds another number of NUL bytes than ``n - 1`` (an id holds a NUL)."""
    s = np.empty(n, np.int64)
    e = np.empty(n, np.int64)
    k = 0
    s[0] = 0
    for i in range(buf.size):
        if buf[i] == 0:
            if k == n - 1:
                return False, s, e
            e[k] = i
            k += 1
            s[k] = i + 1
    e[k] = buf.size
    return k == n - 1, s, e


# --------------------------------------------------------------------------- ids
@njit(cache=True)
def _same(b1, s1, e1, b2, s2, e2):
    if e1 - s1 != e2 - s2:
        return False
    for k in range(e1 - s1):
        if b1[s1 + k] != b2[s2 + k]:
            return False
    return True


@njit(cache=True)
def _hash(b, s, e):
    """FNV-1a of the bytes ``b[s:e]``, 62 bits, the high bits folded into the low ones."""
    h = _FNV_OFFSET
    for k in range(s, e):
        h = ((h ^ int(b[k])) * _FNV_PRIME) & _LOW62
    return h ^ (h >> 29)


@njit(cache=True)
def factorize(buf1, s1, e1, buf2, s2, e2):
    """Codes (in order of first appearance) of the byte-slice ids of two sources taken as one
    list (``buf1`` ids first), and the index of each code's first id.  An id equal to the one
    before it (ids come grouped by topic) costs one comparison."""
    n1 = s1.size
    n = n1 + s2.size
    size = 16
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, np.int64)
    hashes = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    codes = np.empty(n, np.int64)
    nu = 0
    ps = 0
    pe = -1
    for i in range(n):
        if i < n1:
            b, s, e = buf1, s1[i], e1[i]
        else:
            b, s, e = buf2, s2[i - n1], e2[i - n1]
        if i > 0 and i != n1 and _same(b, s, e, b, ps, pe):
            codes[i] = codes[i - 1]
            ps, pe = s, e
            continue
        ps, pe = s, e
        h = _hash(b, s, e)
        slot = h & mask
        while True:
            c = table[slot]
            if c < 0:
                table[slot] = nu
                hashes[nu] = h
                first[nu] = i
                codes[i] = nu
                nu += 1
                break
            if hashes[c] == h:
                j = first[c]
                if j < n1:
                    same = _same(b, s, e, buf1, s1[j], e1[j])
                else:
                    same = _same(b, s, e, buf2, s2[j - n1], e2[j - n1])
                if same:
                    codes[i] = c
                    break
            slot = (slot + 1) & mask
    return codes, first[:nu]


# --------------------------------------------------------------------------- judgements
@njit(cache=True)
def _group(codes, n_groups):
    """(start, order): the rows of each code (>= 0; -1 rows left out), stable (a counting sort)."""
    start = np.zeros(n_groups + 1, np.int64)
    for c in codes:
        if c >= 0:
            start[c + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    order = np.empty(start[n_groups], np.int64)
    for i in range(codes.size):
        c = codes[i]
        if c >= 0:
            order[fill[c]] = i
            fill[c] += 1
    return start, order


@njit(cache=True)
def _table_size(start):
    """A power of two at least twice the largest group of ``start`` (and 16)."""
    most = 0
    for g in range(start.size - 1):
        most = max(most, start[g + 1] - start[g])
    size = 16
    while size < 2 * most:
        size *= 2
    return size


@njit(cache=True)
def dedupe_judgements(tcode, buf, ds, de, grade, n_topics, last_wins):
    """(keep, conflict): one judgement per (topic, document), documents compared by their bytes
    in a small hash table per topic.  ``last_wins``: the last one is kept (as a dict would);
    else repeats of the same grade are dropped (the first kept) and ``conflict`` is the first
    row judging a document again with another grade (-1: none)."""
    start, order = _group(tcode, n_topics)
    keep = np.ones(tcode.size, np.bool_)
    size = _table_size(start)
    mask = size - 1
    stamp = np.full(size, -1, np.int64)
    hh = np.empty(size, np.int64)
    row = np.empty(size, np.int64)
    for t in range(n_topics):
        for k in range(start[t], start[t + 1]):
            r = order[k]
            h = _hash(buf, ds[r], de[r])
            slot = h & mask
            while stamp[slot] == t:
                p = row[slot]
                if hh[slot] == h and _same(buf, ds[r], de[r], buf, ds[p], de[p]):
                    break
                slot = (slot + 1) & mask
            if stamp[slot] != t:
                stamp[slot] = t
                hh[slot] = h
                row[slot] = r
                continue
            p = row[slot]
            if last_wins:
                keep[p] = False
                row[slot] = r
            elif grade[p] != grade[r]:
                return keep, r
            else:
                keep[r] = False
    return keep, -1


# --------------------------------------------------------------------------- ranking
@njit(cache=True)
def _before(score, buf, s, e, a, b):
    """Row ``a`` ranks before row ``b``: a higher score, or an equal score and a docno that sorts
    after ``b``'s in byte order (trec_eval: ties by docno descending)."""
    if score[a] != score[b]:
        return score[a] > score[b]
    la = e[a] - s[a]
    lb = e[b] - s[b]
    for k in range(min(la, lb)):
        ca = buf[s[a] + k]
        cb = buf[s[b] + k]
        if ca != cb:
            return ca > cb
    return la > lb


@njit(cache=True)
def _rank_sort(idx, score, buf, s, e, tmp):
    """Stable bottom-up merge sort of the rows ``idx`` in rank order (:func:`_before`), in place."""
    n = idx.size
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _before(score, buf, s, e, idx[j], idx[i]):
                    tmp[k] = idx[j]
                    j += 1
                else:
                    tmp[k] = idx[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = idx[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = idx[j]
                j += 1
                k += 1
        for k in range(n):
            idx[k] = tmp[k]
        width *= 2


@njit(cache=True)
def rank_join(n_topics, rt, score, buf, s, e, qt, qbuf, qs, qe, qgain, qgrade, depth):
    """trec_eval's ranked list of each topic joined to its judgements.

    Rows of the run with topic index ``rt`` (-1: not evaluated) are ranked by score descending,
    ties by docno descending (byte order); a document repeated within a topic keeps its first
    (best) position only; each list is cut at ``depth`` (0: every document).  The documents of
    a topic are matched to its judgements (topic index ``qt``, one per document) by their bytes
    in a small hash table per topic.  Returns ``(order, seg, pos, gain, grade, judged, start,
    n_ret)`` in topic then rank order."""
    start, order = _group(rt, n_topics)
    tmp = np.empty(order.size, np.int64)
    for t in range(n_topics):
        a, b = start[t], start[t + 1]
        ok = True
        for k in range(a + 1, b):
            if score[order[k]] > score[order[k - 1]]:
                ok = False
                break
        if not ok:  # not written in rank order: sort the topic's rows
            _rank_sort(order[a:b], score, buf, s, e, tmp)
            continue
        k = a
        while k < b:  # in score order: sort each block of equal scores by docno
            j = k + 1
            while j < b and score[order[j]] == score[order[k]]:
                j += 1
            if j - k > 1:
                _rank_sort(order[k:j], score, buf, s, e, tmp)
            k = j
    qstart, qorder = _group(qt, n_topics)
    most = 0
    for t in range(n_topics):
        most = max(most, start[t + 1] - start[t] + qstart[t + 1] - qstart[t])
    size = 16
    while size < 2 * most:
        size *= 2
    mask = size - 1
    stamp = np.full(size, -1, np.int64)
    hh = np.empty(size, np.int64)
    qrow = np.empty(size, np.int64)  # the judgement of the slot's document (-1: none)
    rrow = np.empty(size, np.int64)  # the run row that ranked it (-1: not yet)
    m = order.size
    out = np.empty(m, np.int64)
    seg = np.empty(m, np.int64)
    pos = np.empty(m, np.float64)
    gain = np.zeros(m, np.float64)
    grade = np.full(m, _NO_GRADE, np.int64)
    judged = np.zeros(m, np.bool_)
    tstart = np.zeros(n_topics, np.int64)
    n_ret = np.zeros(n_topics, np.int64)
    n = 0
    for t in range(n_topics):
        for k in range(qstart[t], qstart[t + 1]):
            r = qorder[k]
            h = _hash(qbuf, qs[r], qe[r])
            slot = h & mask
            while stamp[slot] == t:  # (one judgement per document: no match to look for)
                slot = (slot + 1) & mask
            stamp[slot] = t
            hh[slot] = h
            qrow[slot] = r
            rrow[slot] = -1
        tstart[t] = n
        p = 0
        for k in range(start[t], start[t + 1]):
            if depth > 0 and p >= depth:
                break
            r = order[k]
            h = _hash(buf, s[r], e[r])
            slot = h & mask
            while stamp[slot] == t:
                if hh[slot] == h:
                    q = qrow[slot]
                    if q >= 0:
                        if _same(buf, s[r], e[r], qbuf, qs[q], qe[q]):
                            break
                    elif _same(buf, s[r], e[r], buf, s[rrow[slot]], e[rrow[slot]]):
                        break
                slot = (slot + 1) & mask
            if stamp[slot] == t:
                if rrow[slot] >= 0:  # ranked already, at a better position
                    continue
                rrow[slot] = r
                q = qrow[slot]
                gain[n] = qgain[q]
                grade[n] = qgrade[q]
                judged[n] = True
            else:
                stamp[slot] = t
                hh[slot] = h
                qrow[slot] = -1
                rrow[slot] = r
            p += 1
            out[n] = r
            seg[n] = t
            pos[n] = p
            n += 1
        n_ret[t] = p
    return out[:n], seg[:n], pos[:n], gain[:n], grade[:n], judged[:n], tstart, n_ret


# --------------------------------------------------------------------------- metrics
#: metric kinds computed by :func:`fused_metrics` (relevant = gain > 0, no ``rel=``)
FUSED_KINDS = {"AveP": 0, "P": 1, "R": 2, "RR": 3, "nDCG": 4, "R-prec": 5, "Success": 6}


@njit(cache=True)
def fused_metrics(kinds, cuts, gain, pos, tstart, n_ret, ideal, istart, R):
    """Per-topic values of several metrics in one pass over each ranked list.

    ``kinds`` are codes of :data:`FUSED_KINDS`, ``cuts`` their cut-offs (``inf``: none).  The
    sums run in rank order, as the numpy kernels of :mod:`._kernels_ir` sum them."""
    n_topics = tstart.size
    out = np.zeros((kinds.size, n_topics))
    for t in range(n_topics):
        a = tstart[t]
        b = a + n_ret[t]
        Rt = R[t]
        for m in range(kinds.size):
            kind = kinds[m]
            k = cuts[m]
            if kind == 0:  # AveP
                hits = 0
                acc = 0.0
                for i in range(a, b):
                    if pos[i] > k:
                        break
                    if gain[i] > 0:
                        hits += 1
                        acc += hits / pos[i]
                out[m, t] = acc / Rt if Rt > 0 else 0.0
            elif kind == 1 or kind == 2 or kind == 5 or kind == 6:  # P, R, R-prec, Success
                kk = float(Rt) if kind == 5 else k
                hits = 0
                for i in range(a, b):
                    if pos[i] > kk:
                        break
                    if gain[i] > 0:
                        hits += 1
                if kind == 1:
                    if math.isinf(k):
                        out[m, t] = hits / (b - a) if b > a else 0.0
                    else:
                        out[m, t] = hits / k
                elif kind == 6:
                    out[m, t] = 1.0 if hits > 0 else 0.0
                else:
                    out[m, t] = hits / Rt if Rt > 0 else 0.0
            elif kind == 3:  # RR
                for i in range(a, b):
                    if pos[i] > k:
                        break
                    if gain[i] > 0:
                        out[m, t] = 1.0 / pos[i]
                        break
            else:  # nDCG (trec_eval's ndcg_cut)
                num = 0.0
                for i in range(a, b):
                    if pos[i] > k:
                        break
                    num += gain[i] / np.log2(pos[i] + 1.0)
                den = 0.0
                for i in range(Rt):
                    if i + 1 > k:
                        break
                    den += ideal[istart[t] + i] / np.log2(i + 2.0)
                out[m, t] = num / den if den > 0 else 0.0
    return out
