// The signed-in console: a header naming the active team (switched here) and the caller's role in it,
// a menu of the entities (generated from their definitions), the media library, the team, webhooks, scheduled actions (developers), API keys and the account; and the page
// of the path: an entity's records, one record, the keys, or (home) the account with the data's entities.
import { useEffect, useState } from 'preact/hooks';
import { Account } from './account.js';
import type { Session } from './api.js';
import { ApiKeys } from './api-keys.js';
import { entityOf, studioEntities } from './definitions.js';
import { MediaLibrary } from './media-library.js';
import { Link, navigate, useRoute } from './navigation.js';
import { EntityList } from './studio-list.js';
import { RecordPage } from './studio-record.js';
import { holdsGlobalRole, switchTeam, useTeams } from './team.js';
import { TeamPage } from './team-page.js';
import { ScheduledActions } from './scheduled-actions.js';
import { Webhooks } from './webhooks.js';

export function Shell({ session, onSignedOut, onChanged }: { session: Session; onSignedOut: () => void; onChanged: () => void }) {
  const path = useRoute();
  const team = useTeams(session);
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const change = async (teamId: string) => {
    if (await switchTeam(teamId)) onChanged();
  };
  const [, section, slug, id] = path.split('/');
  const d = section === 'data' && slug ? entityOf(slug) : undefined;
  let page;
  if (section === 'api-keys') page = <ApiKeys session={session} />;
  else if (section === 'media') page = <MediaLibrary readOnly={team.readOnly} />;
  else if (section === 'team') page = <TeamPage session={session} team={team.active} />;
  else if (section === 'webhooks') page = <Webhooks role={team.active?.userRole ?? null} />;
  else if (section === 'scheduled-actions') page = <ScheduledActions session={session} />;
  else if (d && id) page = <RecordPage key={`${d.slug}/${id}`} d={d} id={id === 'new' ? null : decodeURIComponent(id)} readOnly={team.readOnly} />;
  else if (d) page = <EntityList key={d.slug} d={d} readOnly={team.readOnly} />;
  else if (section === 'data')
    page = (
      <main class="wide">
        <h1>Not found</h1>
        <p>No entity is named “{slug}”.</p>
      </main>
    );
  else {
    // Home: the account (who, which team, sign-out, password, two-factor, sessions), the data first.
    page = (
      <Account session={session} onSignedOut={onSignedOut} onChanged={onChanged}>
        <section aria-labelledby="data-heading">
          <h2 id="data-heading">Data</h2>
          <ul class="cards">
            {studioEntities.map((e) => (
              <li key={e.slug}>
                <Link to={`/data/${e.slug}`}>{e.label}</Link>
              </li>
            ))}
          </ul>
          {team.readOnly && <p class="hint">{team.readOnly}.</p>}
        </section>
      </Account>
    );
  }
  return (
    <>
      <header class="shell">
        <a class="brand" href="/console" onClick={(e) => (e.preventDefault(), navigate('/'))}>
          Console
        </a>
        <button type="button" class="secondary menu-toggle" aria-expanded={open} aria-controls="menu" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <nav id="menu" aria-label="Console" class={open ? 'open' : undefined}>
          <ul>
            {studioEntities.map((e) => (
              <li key={e.slug}>
                <Link to={`/data/${e.slug}`} current={slug === e.slug}>
                  {e.label}
                </Link>
              </li>
            ))}
            <li>
              <Link to="/media" current={section === 'media'}>
                Media
              </Link>
            </li>
            <li>
              <Link to="/team" current={section === 'team'}>
                Team
              </Link>
            </li>
            <li>
              <Link to="/webhooks" current={section === 'webhooks'}>
                Webhooks
              </Link>
            </li>
            {holdsGlobalRole(session, 'developer') && (
              <li>
                <Link to="/scheduled-actions" current={section === 'scheduled-actions'}>
                  Scheduled actions
                </Link>
              </li>
            )}
            <li>
              <Link to="/api-keys" current={section === 'api-keys'}>
                API keys
              </Link>
            </li>
            <li>
              <Link to="/" current={path === '/'}>
                Account
              </Link>
            </li>
          </ul>
        </nav>
        {team.teams.length > 0 && (
          <span class="inline team">
            <label for="active-team">Team</label>
            <select id="active-team" value={session.activeTeamId ?? ''} onChange={(e) => void change((e.currentTarget as HTMLSelectElement).value)}>
              {team.teams.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.userRole ?? 'member'})
                </option>
              ))}
            </select>
          </span>
        )}
      </header>
      {page}
    </>
  );
}
