// Status and risk badges, translated. The *Pill forms take their texts and use no hooks, so the
// table's rows stay cheap to render while scrolling.
import { riskBand } from '../../../src-shared/resources/fields';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';

export function StatusPill({ status, label }: { status: string; label: string }) {
  return (
    <span className={`badge status status-${status}`} data-status={status}>
      {label}
    </span>
  );
}

export function RiskPill({ band, level, bandLabel }: { band: string; level: string; bandLabel: string }) {
  return (
    <span className={`risk risk-${band}`} data-risk={band}>
      <span className="risk-dot" aria-hidden="true" />
      <span className="risk-level">{level}</span>
      <span className="risk-band">{bandLabel}</span>
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useI18n();
  return <StatusPill status={status} label={t(`status.${status}`, { defaultValue: status })} />;
}

export function RiskBadge({ level, risk }: { level: number | null | undefined; risk?: string | null }) {
  const { t, lang } = useI18n();
  const band = risk ?? riskBand(level);
  return <RiskPill band={band} level={formatNumber(lang, level ?? 0, 1)} bandLabel={t(`risk.${band}`, { defaultValue: band })} />;
}

export function HealthDot({ ok, title }: { ok: boolean | undefined; title: string }) {
  return <span className={`health-dot ${ok === undefined ? 'is-unknown' : ok ? 'is-ok' : 'is-down'}`} title={title} role="img" aria-label={title} />;
}
