-- A version is named by its record and number: (entity, record_id, version) becomes the primary key
-- and the surrogate uuid goes. Every change of a record writes one version in its transaction; the
-- random uuid's index was a second random B-tree insert (and its page writes) on every one of them,
-- for a key nothing reads.
ALTER TABLE "record_history" DROP CONSTRAINT "record_history_pkey";
ALTER TABLE "record_history" DROP COLUMN "id";
DROP INDEX "record_history_entity_record_id_version_key";
ALTER TABLE "record_history" ADD CONSTRAINT "record_history_pkey" PRIMARY KEY ("entity", "record_id", "version");
