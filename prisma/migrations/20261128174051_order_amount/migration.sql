-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "amount" DECIMAL(12,2);

-- CreateIndex
CREATE INDEX "orders_team_id_amount_idx" ON "orders"("team_id", "amount");
