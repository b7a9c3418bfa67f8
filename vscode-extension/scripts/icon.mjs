// Draws the extension's icon, media/icon.png (128 × 128, RGBA): a speed dial on a dark tile,
// its needle pointing into the fast range. No image library: each pixel is the coverage of a
// few shapes given by signed distances, so the edges are antialiased. The marketplace wants a
// PNG; this script is its source.
//
//   node scripts/icon.mjs
import { writeFileSync, mkdirSync } from "node:fs";
import { deflateSync } from "node:zlib";

const size = 128;
const scale = size / 256; // shapes are laid out on a 256 grid
const tile = [0x0b, 0x2a, 0x3d];
const track = [0x2d, 0x5b, 0x78];
const fast = [0x35, 0xc4, 0xa5];
const white = [0xf4, 0xf7, 0xf9];

const centre = [128, 150];
const radius = 84;
const toward = (deg) => [centre[0] + radius * Math.cos((deg * Math.PI) / 180), centre[1] - radius * Math.sin((deg * Math.PI) / 180)];

/** Distance from p to the rounded square of the tile (negative inside). */
function roundedSquare([x, y]) {
  const half = 120, r = 44;
  const qx = Math.abs(x - 128) - (half - r), qy = Math.abs(y - 128) - (half - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}
/** Distance from p to a round-capped arc of the dial between two angles (degrees, counter-clockwise from east). */
function arc(p, from, to, width) {
  const a = (Math.atan2(centre[1] - p[1], p[0] - centre[0]) * 180) / Math.PI;
  const inside = (deg) => { let d = deg; while (d < from) d += 360; return d <= to; };
  if (inside(a)) return Math.abs(Math.hypot(p[0] - centre[0], p[1] - centre[1]) - radius) - width / 2;
  return Math.min(dist(p, toward(from)), dist(p, toward(to))) - width / 2;
}
/** Distance from p to a round-capped segment. */
function segment(p, a, b, width) {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)));
  return dist(p, [a[0] + t * dx, a[1] + t * dy]) - width / 2;
}
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

// Painted in order, each over the previous: [distance function, colour].
const layers = [
  [(p) => roundedSquare(p), tile],
  [(p) => arc(p, -30, 210, 18), track],
  [(p) => arc(p, -30, 90, 18), fast],
  [(p) => segment(p, centre, toward(40), 12), white],
  [(p) => dist(p, centre) - 16, white],
];

const rows = [];
for (let y = 0; y < size; y++) {
  const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
  for (let x = 0; x < size; x++) {
    const p = [(x + 0.5) / scale, (y + 0.5) / scale];
    let rgb = [0, 0, 0], alpha = 0;
    for (const [shape, colour] of layers) {
      const cover = Math.max(0, Math.min(1, 0.5 - shape(p) * scale)); // one pixel of antialiasing
      if (cover === 0) continue;
      rgb = rgb.map((c, i) => c * (1 - cover) + colour[i] * cover);
      alpha = alpha + cover * (1 - alpha);
    }
    const out = alpha > 0 ? rgb.map((c) => Math.round(c)) : [0, 0, 0];
    row.set([...out, Math.round(alpha * 255)], 1 + x * 4);
  }
  rows.push(row);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};
const header = Buffer.alloc(13);
header.writeUInt32BE(size, 0);
header.writeUInt32BE(size, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", header),
  chunk("IDAT", deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
mkdirSync(new URL("../media/", import.meta.url), { recursive: true });
writeFileSync(new URL("../media/icon.png", import.meta.url), png);
console.log(`media/icon.png: ${size}×${size}, ${png.length} bytes`);
