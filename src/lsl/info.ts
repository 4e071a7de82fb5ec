/**
 * An LSL stream's description and its XML, as liblsl writes and reads it: the `<info>` document
 * whose children come in liblsl's order, numbers with 16 significant digits, `desc` holding the
 * channels (label, unit, type) the way the XDF conventions lay them out (what LabRecorder and
 * MNE-LSL read). The short form, in discovery answers, has an empty `<desc />`.
 */
import type { Element as XmlElement } from '@xmldom/xmldom';
import { xmlParser } from './xml-libraries.js';

export const CHANNEL_FORMATS = ['float32', 'double64', 'string', 'int32', 'int16', 'int8', 'int64'] as const;
export type ChannelFormat = (typeof CHANNEL_FORMATS)[number];

/** The numeric formats this implementation sends and reads. */
export type NumericFormat = 'float32' | 'double64';

/** The formats an inlet reads: the numeric ones, and the integers an amplifier's counts come in. */
export type ReadableFormat = NumericFormat | 'int32' | 'int16';

export const READABLE_FORMATS: readonly ReadableFormat[] = ['float32', 'double64', 'int32', 'int16'];

export interface ChannelDescription {
  label: string;
  unit?: string;
  type?: string;
}

export interface StreamInfo {
  name: string;
  type: string;
  channelCount: number;
  channelFormat: ChannelFormat;
  sourceId: string;
  /** Hz; 0 for an irregular stream. */
  nominalSrate: number;
  /** Protocol version the outlet speaks, ×100 (110). */
  version: number;
  /** LSL clock when the outlet was created, s (never 0: liblsl's inlets wait for it). */
  createdAt: number;
  uid: string;
  sessionId: string;
  hostname: string;
  v4address: string;
  v4dataPort: number;
  v4servicePort: number;
  v6address: string;
  v6dataPort: number;
  v6servicePort: number;
  /** The `desc` element's inner XML, already escaped (empty: `<desc />`). */
  descXml: string;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A double as liblsl writes it: 16 significant digits (`250.0000000000000`). */
export function formatLslNumber(value: number): string {
  return Number.isFinite(value) ? value.toPrecision(16) : String(value);
}

/** The `desc` of an EEG-like stream: its channels and who made it. */
export function describeChannels(
  channels: readonly ChannelDescription[],
  extra: Readonly<Record<string, string>> = {},
): string {
  const items = channels
    .map((ch) => {
      const unit = ch.unit === undefined ? '' : `<unit>${escapeXml(ch.unit)}</unit>`;
      const type = ch.type === undefined ? '' : `<type>${escapeXml(ch.type)}</type>`;
      return `\t\t\t<channel><label>${escapeXml(ch.label)}</label>${unit}${type}</channel>\n`;
    })
    .join('');
  const rest = Object.entries(extra)
    .map(([key, value]) => `\t\t<${key}>${escapeXml(value)}</${key}>\n`)
    .join('');
  return `\n\t\t<channels>\n${items}\t\t</channels>\n${rest}\t`;
}

/** The XML of a stream info: full (with desc) or short (empty desc). */
export function infoXml(info: StreamInfo, full: boolean): string {
  const field = (name: string, value: string | number) =>
    `\t<${name}>${typeof value === 'number' ? String(value) : escapeXml(value)}</${name}>\n`;
  const desc = full && info.descXml !== '' ? `\t<desc>${info.descXml}</desc>\n` : '\t<desc />\n';
  return (
    '<?xml version="1.0"?>\n<info>\n' +
    field('name', info.name) +
    field('type', info.type) +
    field('channel_count', info.channelCount) +
    field('channel_format', info.channelFormat) +
    field('source_id', info.sourceId) +
    `\t<nominal_srate>${formatLslNumber(info.nominalSrate)}</nominal_srate>\n` +
    `\t<version>${formatLslNumber(info.version / 100)}</version>\n` +
    `\t<created_at>${formatLslNumber(info.createdAt)}</created_at>\n` +
    field('uid', info.uid) +
    field('session_id', info.sessionId) +
    field('hostname', info.hostname) +
    field('v4address', info.v4address) +
    field('v4data_port', info.v4dataPort) +
    field('v4service_port', info.v4servicePort) +
    field('v6address', info.v6address) +
    field('v6data_port', info.v6dataPort) +
    field('v6service_port', info.v6servicePort) +
    desc +
    '</info>\n'
  );
}

/** Parses `<info>` XML; undefined when it is not a stream info liblsl would accept. */
export function parseInfoXml(xml: string): (StreamInfo & { channels: ChannelDescription[] }) | undefined {
  let root: XmlElement | null;
  try {
    const doc = new (xmlParser().DOMParser)({ onError: () => undefined }).parseFromString(xml, 'text/xml');
    root = doc.documentElement;
  } catch {
    return undefined;
  }
  if (root?.nodeName !== 'info') return undefined;
  const text = (name: string): string => {
    for (let n = root.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeName === name) return (n.textContent ?? '').trim();
    }
    return '';
  };
  const int = (name: string) => Number.parseInt(text(name) || '0', 10);
  const format = text('channel_format') as ChannelFormat;
  const version = Math.round(Number(text('version')) * 100);
  if (text('name') === '' || text('uid') === '' || !CHANNEL_FORMATS.includes(format) || !(version > 0)) {
    return undefined;
  }
  const channels: ChannelDescription[] = [];
  const desc = root.getElementsByTagName('desc')[0];
  const list = desc?.getElementsByTagName('channels')[0];
  if (list !== undefined) {
    for (const ch of Array.from(list.getElementsByTagName('channel'))) {
      const child = (name: string) => ch.getElementsByTagName(name)[0]?.textContent?.trim();
      const unit = child('unit');
      const type = child('type');
      channels.push({
        label: child('label') ?? '',
        ...(unit === undefined ? {} : { unit }),
        ...(type === undefined ? {} : { type }),
      });
    }
  }
  return {
    name: text('name'),
    type: text('type'),
    channelCount: int('channel_count'),
    channelFormat: format,
    sourceId: text('source_id'),
    nominalSrate: Number(text('nominal_srate') || '0'),
    version,
    createdAt: Number(text('created_at') || '0'),
    uid: text('uid'),
    sessionId: text('session_id'),
    hostname: text('hostname'),
    v4address: text('v4address'),
    v4dataPort: int('v4data_port'),
    v4servicePort: int('v4service_port'),
    v6address: text('v6address'),
    v6dataPort: int('v6data_port'),
    v6servicePort: int('v6service_port'),
    descXml: '',
    channels,
  };
}
