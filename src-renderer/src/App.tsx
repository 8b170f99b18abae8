import { useEffect, useState, type FormEvent } from 'react';
import { initialKey } from './session';
import { useConsole } from './store';

function SignIn() {
  const signIn = useConsole((s) => s.signIn);
  const error = useConsole((s) => s.error);
  const [key, setKey] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (key.trim()) void signIn(key.trim());
  };
  return (
    <form className="signin" onSubmit={submit} aria-label="Sign in">
      <h2>API key</h2>
      <p>The key is printed by <code>radar-console serve</code> in its ready line.</p>
      <input type="password" autoFocus value={key} onChange={(e) => setKey(e.target.value)} aria-label="API key" />
      <button type="submit">Open</button>
      {error && <p role="alert" className="error">{error}</p>}
    </form>
  );
}

function Incidents() {
  const { incidents, total, status, error, load } = useConsole();
  return (
    <section>
      <div className="toolbar">
        <h2>Incidents</h2>
        <span data-testid="total">{total} total</span>
        <button onClick={() => void load()} disabled={status === 'loading'}>
          Refresh
        </button>
      </div>
      {status === 'error' && <p role="alert" className="error">{error}</p>}
      {status === 'ready' && incidents.length === 0 && <p className="empty">No incidents.</p>}
      <table aria-label="Incidents">
        <thead>
          <tr>
            <th>#</th>
            <th>Title</th>
            <th>Status</th>
            <th>Risk</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {incidents.map((i) => (
            <tr key={i.id}>
              <td className="num">{i.display_id}</td>
              <td>{i.title}</td>
              <td>
                <span className={`status status-${i.status}`}>{i.status}</span>
              </td>
              <td>
                <span className={`risk risk-${i.risk ?? 'none'}`}>
                  {i.risk} {i.risklevel.toFixed(1)}
                </span>
              </td>
              <td className="num">{new Date(i.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function App() {
  const { apiKey, signIn, signOut } = useConsole();
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    void initialKey().then(async (key) => {
      if (key) await signIn(key);
      setChecked(true);
    });
  }, [signIn]);
  return (
    <div className="app">
      <header>
        <h1>Radar console</h1>
        {apiKey && (
          <button className="link" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main>{!checked ? <p>Loading…</p> : apiKey ? <Incidents /> : <SignIn />}</main>
    </div>
  );
}
