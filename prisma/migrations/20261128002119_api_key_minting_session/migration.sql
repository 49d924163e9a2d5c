-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "created_by_session_id" UUID;
