/**
 * The impedance head map of GET /electrodes/impedance/map: a top view of the head with each
 * electrode at its 10-20 position (head-positions.ts), filled with the colour of its quality
 * level, labelled with its name and value (each with its unit: kΩ, or MΩ from 1000 kΩ), and a
 * legend. SVG, and PNG rendered from it by
 * resvg with the DejaVu Sans shipped in assets/fonts, so labels render on a machine without any
 * system font.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ELECTRODES, type Electrode, type ElectrodeMap, MIXED_CASE } from '../../core/electrodes.js';
import { HEAD_POSITIONS } from '../../core/head-positions.js';
import {
  type ColorScheme,
  DEFAULT_THRESHOLDS,
  IMPEDANCE_LEVELS,
  type ImpedanceLevel,
  impedanceLevel,
  LEVEL_COLORS,
  type LevelThresholds,
  levelRange,
} from './impedance-levels.js';

export interface HeadMapOptions {
  /** kΩ per electrode; electrodes without a value are drawn grey, marked "no data". */
  readonly values: ElectrodeMap<number>;
  readonly scheme?: ColorScheme;
  readonly thresholds?: LevelThresholds;
  /** ms since the epoch of the measurement, printed under the title. */
  readonly timestamp?: number;
}

const WIDTH = 640;
const HEIGHT = 776;
const CX = 320;
/** The head's centre: low enough that the nose's tip stays clear of the subtitle (NOSE_TIP_Y). */
const CY = 362;
/** Head radius in px. */
const R = 250;
const DOT = 27;
/** How far the nose's tip stands out above the head's outline, px. */
const NOSE = 34;
/** The baseline of the subtitle; the nose starts 20 px below it, past the text's descenders. */
export const SUBTITLE_Y = 52;
export const NOSE_TIP_Y = CY - R - NOSE;
const NO_DATA = '#9E9E9E';
const FONT = 'DejaVu Sans';

const LEVEL_NAMES: Readonly<Record<ImpedanceLevel, string>> = {
  excellent: 'Excellent',
  good: 'Good',
  acceptable: 'Acceptable',
  poor: 'Poor',
  very_poor: 'Very poor',
};

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Black or white text, whichever contrasts more with a `#RRGGBB` fill (WCAG relative luminance). */
function textColorOn(fill: string): string {
  const channel = (offset: number): number => {
    const v = parseInt(fill.slice(offset, offset + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.22 ? '#111111' : '#FFFFFF';
}

/** A value as printed: 3 significant figures below 1000 kΩ, MΩ above. */
export function formatKiloohms(kohms: number): string {
  if (kohms >= 1000) return `${(kohms / 1000).toPrecision(3)} MΩ`;
  return `${kohms >= 100 ? kohms.toFixed(0) : kohms >= 10 ? kohms.toFixed(1) : kohms.toFixed(2)} kΩ`;
}

function electrodeMarkup(
  electrode: Electrode,
  kohms: number | undefined,
  colors: Record<ImpedanceLevel, string>,
  t: LevelThresholds,
): string {
  const point = HEAD_POSITIONS[electrode];
  const x = CX + point.x * R;
  const y = CY - point.y * R;
  const fill = kohms === undefined ? NO_DATA : colors[impedanceLevel(kohms, t)];
  const ink = textColorOn(fill);
  const label = escapeXml(MIXED_CASE[electrode]);
  const value = kohms === undefined ? 'no data' : escapeXml(formatKiloohms(kohms));
  return [
    `<g id="electrode-${label}">`,
    `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${DOT}" fill="${fill}" stroke="#333333" stroke-width="2"/>`,
    `<text x="${x.toFixed(1)}" y="${(y + 6).toFixed(1)}" font-size="17" font-weight="bold" fill="${ink}" text-anchor="middle">${label}</text>`,
    `<text x="${x.toFixed(1)}" y="${(y + DOT + 16).toFixed(1)}" font-size="13" fill="#111111" text-anchor="middle" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">${value}</text>`,
    '</g>',
  ].join('');
}

function legendMarkup(colors: Record<ImpedanceLevel, string>, t: LevelThresholds): string {
  const top = 664;
  const entries = [
    ...IMPEDANCE_LEVELS.map((level) => ({
      color: colors[level],
      text: `${LEVEL_NAMES[level]} ${levelRange(level, t)}`,
    })),
    { color: NO_DATA, text: 'No data' },
  ];
  return entries
    .map((entry, i) => {
      const column = Math.floor(i / 3);
      const row = i % 3;
      const x = 110 + column * 250;
      const y = top + row * 32;
      return (
        `<rect x="${x}" y="${y}" width="22" height="22" rx="4" fill="${entry.color}" stroke="#333333"/>` +
        `<text x="${x + 30}" y="${y + 17}" font-size="15" fill="#111111">${escapeXml(entry.text)}</text>`
      );
    })
    .join('');
}

/** The head map as an SVG document. */
export function renderHeadMapSvg(options: HeadMapOptions): string {
  const colors = LEVEL_COLORS[options.scheme ?? 'default'];
  const t = options.thresholds ?? DEFAULT_THRESHOLDS;
  const subtitle =
    options.timestamp === undefined
      ? 'No measurement yet'
      : `Measured ${new Date(options.timestamp).toISOString()}`;
  const head = [
    // Nose (up) and ears, then the head outline over them.
    `<path d="M ${CX - 28} ${CY - R + 4} L ${CX} ${NOSE_TIP_Y} L ${CX + 28} ${CY - R + 4}" fill="#FFF4E8" stroke="#333333" stroke-width="3"/>`,
    `<ellipse cx="${CX - R - 6}" cy="${CY}" rx="16" ry="44" fill="#FFF4E8" stroke="#333333" stroke-width="3"/>`,
    `<ellipse cx="${CX + R + 6}" cy="${CY}" rx="16" ry="44" fill="#FFF4E8" stroke="#333333" stroke-width="3"/>`,
    `<circle cx="${CX}" cy="${CY}" r="${R}" fill="#FFF4E8" stroke="#333333" stroke-width="3"/>`,
    `<line x1="${CX}" y1="${CY - R}" x2="${CX}" y2="${CY + R}" stroke="#D8CCBE" stroke-dasharray="6 6"/>`,
    `<line x1="${CX - R}" y1="${CY}" x2="${CX + R}" y2="${CY}" stroke="#D8CCBE" stroke-dasharray="6 6"/>`,
  ].join('');
  const electrodes = ELECTRODES.map((e) => electrodeMarkup(e, options.values[e], colors, t)).join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="${FONT}, sans-serif">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#FFFFFF"/>`,
    `<text x="${CX}" y="30" font-size="22" font-weight="bold" fill="#111111" text-anchor="middle">Electrode impedance</text>`,
    `<text x="${CX}" y="${SUBTITLE_Y}" font-size="13" fill="#444444" text-anchor="middle">${escapeXml(subtitle)} · top view, nose up</text>`,
    head,
    electrodes,
    legendMarkup(colors, t),
    '</svg>',
  ].join('\n');
}

/** The fonts shipped with the service (assets/fonts), found from src/ and dist/ alike. */
export function bundledFontFiles(): string[] {
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']
    .map((name) => fileURLToPath(new URL(`../../../assets/fonts/${name}`, import.meta.url)))
    .filter((file) => existsSync(file));
}

/**
 * Renders an SVG to PNG with the bundled fonts only (no system fonts needed). The rasteriser (a
 * native library) is loaded on the first PNG asked for, not at start-up: most services never
 * render one, and loading it costs start-up time and memory.
 */
export async function renderPng(svg: string): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  const resvg = new Resvg(svg, {
    font: { fontFiles: bundledFontFiles(), loadSystemFonts: false, defaultFontFamily: FONT },
    background: '#FFFFFF',
  });
  return resvg.render().asPng();
}
