" HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256) for the Vim channel's handshake: the twin of
" agent/editors/vim/handshake.ts. Vim's sha256() hashes a String, which cannot hold a NUL byte, and
" HMAC hashes bytes (the padded key, the inner digest): so SHA-256 is computed here on lists of
" byte values. Keys and messages are ASCII (the token, labels, hex). Also a nonce from
" /dev/urandom. Slow next to C (a few milliseconds a proof), and run once per connection.

let s:K = [
      \ 0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      \ 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      \ 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      \ 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      \ 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      \ 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      \ 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      \ 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]
let s:H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
let s:MASK = 0xffffffff

" `x` (32 bits) rotated right by `n`.
function! s:rotr(x, n) abort
  return or(a:x >> a:n, and(a:x << (32 - a:n), s:MASK))
endfunction

" SHA-256 of a list of byte values: a list of 32 byte values.
function! s:sha256(bytes) abort
  let size = len(a:bytes)
  " Padding: 0x80, zeros up to 56 bytes past a block boundary, then the length in bits (64 bits, big-endian).
  let msg = a:bytes + [0x80] + repeat([0], (119 - size % 64) % 64)
  for i in range(7, 0, -1)
    call add(msg, and((size * 8) >> (i * 8), 0xff))
  endfor
  let h = copy(s:H0)
  let w = repeat([0], 64)
  for off in range(0, len(msg) - 1, 64)
    for t in range(16)
      let i = off + 4 * t
      let w[t] = or(or(msg[i] << 24, msg[i + 1] << 16), or(msg[i + 2] << 8, msg[i + 3]))
    endfor
    for t in range(16, 63)
      let x = w[t - 15]
      let y = w[t - 2]
      let s0 = xor(xor(s:rotr(x, 7), s:rotr(x, 18)), x >> 3)
      let s1 = xor(xor(s:rotr(y, 17), s:rotr(y, 19)), y >> 10)
      let w[t] = and(w[t - 16] + s0 + w[t - 7] + s1, s:MASK)
    endfor
    let [va, vb, vc, vd, ve, vf, vg, vh] = h
    for t in range(64)
      let big1 = xor(xor(s:rotr(ve, 6), s:rotr(ve, 11)), s:rotr(ve, 25))
      let choose = xor(and(ve, vf), and(and(invert(ve), s:MASK), vg))
      let t1 = and(vh + big1 + choose + s:K[t] + w[t], s:MASK)
      let big0 = xor(xor(s:rotr(va, 2), s:rotr(va, 13)), s:rotr(va, 22))
      let majority = xor(xor(and(va, vb), and(va, vc)), and(vb, vc))
      let t2 = and(big0 + majority, s:MASK)
      let [vh, vg, vf, ve] = [vg, vf, ve, and(vd + t1, s:MASK)]
      let [vd, vc, vb, va] = [vc, vb, va, and(t1 + t2, s:MASK)]
    endfor
    let vs = [va, vb, vc, vd, ve, vf, vg, vh]
    for i in range(8)
      let h[i] = and(h[i] + vs[i], s:MASK)
    endfor
  endfor
  let out = []
  for word in h
    call extend(out, [and(word >> 24, 0xff), and(word >> 16, 0xff), and(word >> 8, 0xff), and(word, 0xff)])
  endfor
  return out
endfunction

function! s:bytes(text) abort
  return map(range(strlen(a:text)), 'char2nr(a:text[v:val])')
endfunction

function! s:hex(bytes) abort
  return join(map(copy(a:bytes), 'printf("%02x", v:val)'), '')
endfunction

" HMAC-SHA256 of the ASCII `message` under the ASCII `key`, as 64 hex digits.
function! vimrelay#util#hmac#sha256(key, message) abort
  let key = s:bytes(a:key)
  if len(key) > 64
    let key = s:sha256(key)
  endif
  let key += repeat([0], 64 - len(key))
  let inner = s:sha256(map(copy(key), 'xor(v:val, 0x36)') + s:bytes(a:message))
  return s:hex(s:sha256(map(copy(key), 'xor(v:val, 0x5c)') + inner))
endfunction

" A handshake proof: `label` proving, for `address`, over the nonces `first` then `second`.
function! vimrelay#util#hmac#proof(token, label, address, first, second) abort
  return vimrelay#util#hmac#sha256(a:token, a:label . "\n" . sha256(a:address) . "\n" . a:first . "\n" . a:second)
endfunction

" 32 random bytes from /dev/urandom, as hex.
function! vimrelay#util#hmac#nonce() abort
  let random = readblob('/dev/urandom', 0, 32)
  if len(random) != 32
    throw 'vimrelay: cannot read /dev/urandom for a nonce'
  endif
  let bytes = []
  for b in random
    call add(bytes, b)
  endfor
  return s:hex(bytes)
endfunction
