// Colours of statuses and risk bands, shared by badges (through CSS variables) and charts.
import type { IncidentStatus, RiskBand } from '../../../src-shared/resources/fields';

export const STATUS_COLORS: Record<IncidentStatus, { light: string; dark: string }> = {
  new: { light: '#1f6feb', dark: '#4c8dff' },
  assigned_customer: { light: '#6639ba', dark: '#a371f7' },
  working_customer: { light: '#0a7b83', dark: '#39c5cf' },
  feedback_required: { light: '#b35900', dark: '#f0883e' },
  verify_close: { light: '#8a6d00', dark: '#d4b21a' },
  risk_accepted: { light: '#8c4a6b', dark: '#db61a2' },
  closed: { light: '#1a7f37', dark: '#3fb950' },
  invalid: { light: '#6e7781', dark: '#8b949e' },
};

export const RISK_COLORS: Record<RiskBand, { light: string; dark: string }> = {
  none: { light: '#8c959f', dark: '#6e7681' },
  low: { light: '#2da44e', dark: '#3fb950' },
  medium: { light: '#bf8700', dark: '#d29922' },
  high: { light: '#e16f24', dark: '#f0883e' },
  critical: { light: '#cf222e', dark: '#f85149' },
};

export const isDark = (): boolean => document.documentElement.dataset.theme === 'dark';

export function statusColor(s: string): string {
  const c = STATUS_COLORS[s as IncidentStatus];
  return c ? (isDark() ? c.dark : c.light) : '#888';
}

export function riskColor(r: string): string {
  const c = RISK_COLORS[r as RiskBand];
  return c ? (isDark() ? c.dark : c.light) : '#888';
}
